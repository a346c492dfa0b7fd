/**
 * The shortest decimal text that reads back to the same float32 (123.45, not 123.44999694824219).
 *
 * Math.fround(value) is the float32 the wire carries. Nine significant digits always identify a
 * float32, so the search over toPrecision(1..9) ends; the first precision whose text rounds back to
 * the same float32 is the shortest. String(Number(text)) then gives JavaScript's canonical spelling
 * (no trailing zeros, exponent only for very large or small magnitudes), which parses to the same
 * number. Non-finite values have no JSON spelling and come out as "null"; -0 keeps its sign.
 */
export function formatFloat32(value: number): string {
  const f = Math.fround(value);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  if (!Number.isFinite(f)) return 'null';
  // Fast path for whole prices and volumes: below 2^24 float32 spacing is at most 1, so an integer
  // float32 has no shorter decimal than its own digits.
  if (f < 16777216 && f > -16777216 && Number.isInteger(f)) return String(f);
  for (let precision = 1; precision < 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(Number(f.toPrecision(9)));
}
