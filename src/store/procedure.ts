/** A store operation's result: at once on SQLite, a promise on PostgreSQL. */
export type Op<T> = T | Promise<T>;

/**
 * A procedure written once for both stores (a rebuild's replay and swap, an Idempotency-Key claim): it
 * yields each store operation (`yield* op(...)`) and is resumed with its result. SQLite runs it to the end
 * synchronously (`runNow`), inside one of its transactions on the service's connection, where no other
 * write may interleave; PostgreSQL awaits each operation (`runAwaited`). Procedures hold no `finally`:
 * an operation that fails ends them where they stand.
 */
export type Procedure<R> = Generator<Op<unknown>, R, unknown>;

export function* op<T>(value: Op<T>): Procedure<T> {
  return (yield value) as T;
}

export function runNow<R>(procedure: Procedure<R>): R {
  for (let step = procedure.next(); ; ) {
    if (step.done) return step.value;
    if (step.value instanceof Promise) throw new Error('a synchronous store procedure was handed a promise');
    step = procedure.next(step.value);
  }
}

export async function runAwaited<R>(procedure: Procedure<R>): Promise<R> {
  for (let step = procedure.next(); ; ) {
    if (step.done) return step.value;
    step = procedure.next(await step.value);
  }
}
