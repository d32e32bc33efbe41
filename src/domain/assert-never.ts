/** Exhaustiveness check: a new union member fails to compile until every switch handles it. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
