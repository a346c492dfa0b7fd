/**
 * Kafka's zigzag varints (`varint`, `varlong`), read in place at a shared cursor. The cursor is one
 * module object rather than a returned pair: decoding a record reads six or more varints, and a
 * tuple per read would be the per-record garbage this package exists to avoid. One decode runs at
 * a time on the one JS thread, so sharing it is safe.
 */
export const cursor = { at: 0 };

/** A zigzag varint (32-bit) at `cursor.at`, advancing it. */
export function readVarint(bytes: Uint8Array): number {
  let at = cursor.at;
  let b = bytes[at++] as number;
  let u = b & 0x7f;
  if (b >= 0x80) {
    b = bytes[at++] as number;
    u |= (b & 0x7f) << 7;
    if (b >= 0x80) {
      b = bytes[at++] as number;
      u |= (b & 0x7f) << 14;
      if (b >= 0x80) {
        b = bytes[at++] as number;
        u |= (b & 0x7f) << 21;
        if (b >= 0x80) {
          b = bytes[at++] as number;
          u |= b << 28;
        }
      }
    }
  }
  cursor.at = at;
  return (u >>> 1) ^ -(u & 1);
}

/** A zigzag varlong at `cursor.at`, advancing it; exact while |value| < 2^53 (timestamps are). */
export function readVarlong(bytes: Uint8Array): number {
  let at = cursor.at;
  let b = bytes[at++] as number;
  if (b < 0x80) {
    cursor.at = at;
    return (b >>> 1) ^ -(b & 1);
  }
  let u = b & 0x7f;
  let scale = 128;
  for (let i = 1; i < 10; i++) {
    b = bytes[at++] as number;
    u += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) break;
  }
  cursor.at = at;
  return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
}
