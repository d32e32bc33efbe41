/**
 * Reads `source` up to `depth` items ahead of its consumers, each through `prepare` (the next account
 * parsed and hashed while the workers wait for the service, not while the service waits on the client).
 * One item a turn of the event loop, so an answer is not kept waiting; items come out in order, each once.
 */
export function readAhead<T, P>(source: AsyncIterable<T> | Iterable<T>, depth: number, prepare: (item: T) => P): AsyncIterableIterator<P> {
  const iterator: AsyncIterator<T> | Iterator<T> = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  /** Reads made and not taken yet, in the source's order. */
  const ahead: Promise<IteratorResult<P, undefined>>[] = [];
  let exhausted = false;
  let scheduled = false;

  const read = (): Promise<IteratorResult<P, undefined>> => {
    const result = Promise.resolve(iterator.next()).then((next): IteratorResult<P, undefined> => {
      if (next.done) {
        exhausted = true;
        return { done: true, value: undefined };
      }
      return { done: false, value: prepare(next.value) };
    });
    result.catch(() => undefined); // a read nobody takes (a stopped run) must not fail the process; its taker gets the error
    return result;
  };
  const fill = () => {
    scheduled = false;
    if (exhausted || ahead.length >= depth) return;
    const result = read();
    ahead.push(result);
    result.then(schedule, () => undefined);
  };
  const schedule = () => {
    if (scheduled || exhausted || ahead.length >= depth) return;
    scheduled = true;
    setImmediate(fill);
  };

  return {
    next: async () => {
      const result = ahead.shift() ?? (exhausted ? Promise.resolve({ done: true, value: undefined } as const) : read());
      schedule();
      return result;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
