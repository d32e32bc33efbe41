/**
 * Reads `source` up to `depth` items ahead of its consumers, each item passed through `prepare` as it is
 * read: the next account's line read and parsed and its body hashed for the Idempotency-Key while the
 * workers wait for the service, rather than between an answer and the request that follows it. That gap is
 * what the service waits on with 8 requests in flight (bench "migrate 2,000 accounts": the smaller the
 * client's turn-around, the more requests each of the service's group commits takes in).
 *
 * One item is read a turn of the event loop (`setImmediate`), so an answer that arrives meanwhile is not
 * kept waiting behind a run of them. Items come out in the source's order, each once; a failure to read
 * comes out where the item would have. Nothing is read past `depth` items not yet taken.
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
