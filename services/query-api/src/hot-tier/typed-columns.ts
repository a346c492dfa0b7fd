/** The hot tier's columns: typed arrays grown by doubling and trimmed after the load. */
export type Column = Uint32Array | Int32Array | Float32Array | Float64Array;

/** A column of the same type with `capacity` slots, holding the first `length` values of `from`. */
export function resized<T extends Column>(from: T, capacity: number, length: number): T {
  const to = new (from.constructor as new (n: number) => T)(capacity);
  to.set(from.subarray(0, Math.min(length, capacity)));
  return to;
}
