import { jsCRC32C } from '@platformatic/kafka';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../src/index.js';

/** The definition itself, a bit at a time (reflected Castagnoli polynomial): slow and obviously right. */
function bitwiseCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32c', () => {
  it("matches the standard check value, the bitwise definition and the library's own on any bytes and range", () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(20), fc.nat(20), (bytes, a, b) => {
        const start = Math.min(a, bytes.length);
        const end = Math.max(start, bytes.length - b);
        const buffer = Buffer.from(bytes);
        const expected = bitwiseCrc32c(buffer.subarray(start, end));
        expect(crc32c(buffer, start, end)).toBe(expected);
        expect(jsCRC32C(buffer.subarray(start, end)) >>> 0).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
