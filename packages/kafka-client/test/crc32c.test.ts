import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../src/index.js';

// kafkajs's CRC-32C, the reference the record batches' checksums were first held to.
const require = createRequire(import.meta.url);
const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C') as (buffer: Buffer) => number;

describe('crc32c', () => {
  it('matches the standard check value and kafkajs on any bytes and range', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(0))).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(20), fc.nat(20), (bytes, a, b) => {
        const start = Math.min(a, bytes.length);
        const end = Math.max(start, bytes.length - b);
        const buffer = Buffer.from(bytes);
        expect(crc32c(buffer, start, end)).toBe(kafkajsCrc32c(buffer.subarray(start, end)));
      }),
      { numRuns: 2_000 },
    );
  });
});
