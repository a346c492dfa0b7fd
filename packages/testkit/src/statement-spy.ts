/**
 * A store whose internal lane records the statements it reads with (`rows`, `stream`) that
 * `matches` selects, passing every call through unchanged: for tests that count what requests
 * cost the store (the key table's reads under a flood of bad keys). Typed by shape (anything with
 * an `internal` lane), so the test kit needs no dependency on the store package, which tests with it.
 */
const READS = new Set<PropertyKey>(['rows', 'stream']);

/** Methods bound to the object they came from, so a proxy forwards them intact. */
function passThrough(target: object, property: PropertyKey, receiver: unknown): unknown {
  const value = Reflect.get(target, property, receiver);
  return typeof value === 'function' ? value.bind(target) : value;
}

export function recordingReads<S extends { internal: object }>(
  store: S,
  matches: (sql: string) => boolean,
  seen: string[],
): S {
  const lane = new Proxy(store.internal, {
    get(target, property, receiver) {
      if (!READS.has(property)) return passThrough(target, property, receiver);
      const read = Reflect.get(target, property, receiver) as (sql: string, ...rest: unknown[]) => unknown;
      return (sql: string, ...rest: unknown[]) => {
        if (matches(sql)) seen.push(sql);
        return read.call(target, sql, ...rest);
      };
    },
  });
  return new Proxy(store, {
    get: (target, property, receiver) =>
      property === 'internal' ? lane : passThrough(target, property, receiver),
  });
}
