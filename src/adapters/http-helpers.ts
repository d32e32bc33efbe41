/** Small helpers shared by the outbound HTTP adapters (network operators, payment vendors). */

/** The body as JSON, or undefined when it is not JSON: a bad body is the caller's to judge, never a throw. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The most telling reason of a failed fetch: undici's cause code (ECONNREFUSED, ...) or message. */
export function networkCause(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
