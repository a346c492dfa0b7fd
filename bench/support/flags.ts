/** Command-line flags of the benchmarks, checked once. */

/** An integer flag in [min, max], or `fallback` when it is not given. */
export function intFlag(
  value: string | undefined,
  fallback: number,
  name: string,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer in [${min}, ${max}]`);
  return n;
}
