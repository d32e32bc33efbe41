import { z } from 'zod';

/** What a GET of the outbound HTTP adapters (network operators, payment vendors) came back with. */
export type JsonAnswer =
  /** `body` is the JSON (undefined when it is not JSON: the caller judges a bad body, never a throw); `message` its `message` field. */
  | { readonly kind: 'answer'; readonly response: Response; readonly body: unknown; readonly message: string | null }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'timeout' }
  /** `cause`: undici's cause code (ECONNREFUSED, ...) or message. */
  | { readonly kind: 'unreachable'; readonly cause: string };

const messageSchema = z.looseObject({ message: z.string().min(1) });

/** GETs `url` as JSON within `timeoutMs`, connection to end of body. */
export async function getJson(doFetch: typeof fetch, url: URL, timeoutMs: number, signal?: AbortSignal): Promise<JsonAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await doFetch(url, { headers: { accept: 'application/json' }, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) return { kind: 'aborted' };
    if (timeout.aborted) return { kind: 'timeout' };
    return { kind: 'unreachable', cause: networkCause(error) };
  }
  const body = parseJson(text);
  const message = messageSchema.safeParse(body);
  return { kind: 'answer', response, body, message: message.success ? message.data.message : null };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function networkCause(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
