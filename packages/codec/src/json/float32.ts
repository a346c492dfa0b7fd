/**
 * The shortest decimal text that reads back to the same float32 (123.45, not 123.44999694824219).
 *
 * Math.fround(value) is the float32 the wire carries. Nine significant digits always identify a
 * float32, so the search over toPrecision(1..9) ends; the first precision whose text rounds back to
 * the same float32 is the shortest (if p digits work, p+1 do too: the nearest (p+1)-digit decimal is
 * at least as close). String(Number(text)) then gives JavaScript's canonical spelling (no trailing
 * zeros, exponent only for very large or small magnitudes), which parses to the same number.
 * Non-finite values have no JSON spelling and come out as "null"; -0 keeps its sign.
 */
export function formatFloat32(value: number): string {
  const f = Math.fround(value);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  if (!Number.isFinite(f)) return 'null';
  const magnitude = f < 0 ? -f : f;
  if (magnitude < 8388608) {
    // Below 2^24 float32 spacing is at most 1, so an integer float32 has no shorter decimal.
    if (Number.isInteger(f)) return String(f);
    // Prices: below 2^23 every integer is exact, so a non-integer float32 needs fractional digits,
    // and with the integer digits fixed by the magnitude, fewest fractional digits means fewest
    // significant digits. The nearest d-decimal is the only one of d decimals that can round-trip
    // (on a tie, the larger magnitude, as toPrecision picks), and k / 10^d is the correctly rounded
    // double of that decimal. magnitude * scale is exact (24 bits times at most 14 bits). Several
    // times cheaper than toPrecision, which matters for the decode CLI.
    if (magnitude >= 0.001) {
      for (let scale = 10; scale <= 10000; scale *= 10) {
        const candidate = Math.round(magnitude * scale) / scale;
        if (Math.fround(candidate) === magnitude) return f < 0 ? String(-candidate) : String(candidate);
      }
    }
  }
  for (let precision = 1; precision < 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(Number(f.toPrecision(9)));
}
