/**
 * `read` behind a cache: a value younger than `maxAgeMs` is given again and callers share a read in flight,
 * so scrapes cost at most one read per `maxAgeMs`, whatever their rate. A failed read is not cached.
 */
export function cachedFigures<T>(read: () => Promise<T>, maxAgeMs: number): () => Promise<T> {
  let value: { readonly at: number; readonly figures: T } | null = null;
  let inFlight: Promise<T> | null = null;
  return () => {
    if (value && performance.now() - value.at < maxAgeMs) return Promise.resolve(value.figures);
    inFlight ??= read()
      .then((figures) => {
        // An empty answer (sources not there yet) is not worth keeping.
        if (figures !== null) value = { at: performance.now(), figures };
        return figures;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}
