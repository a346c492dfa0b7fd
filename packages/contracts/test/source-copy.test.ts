/** The copy rule of the source identity (isSourceCopy), which the sink and the query API's hot tier share. */
import { describe, expect, it } from 'vitest';
import {
  isSourceCopy,
  MAX_SOURCE_STREAMS_PER_PARTITION,
  SOURCE_BYTES,
  type SourceMark,
  writeSourceIdentity,
} from '../src/index.js';

function header(run: number, connection: number, chunk: number, row: number): Uint8Array {
  const bytes = new Uint8Array(SOURCE_BYTES);
  writeSourceIdentity(new DataView(bytes.buffer), { run, connection, chunk, row });
  return bytes;
}

describe('isSourceCopy', () => {
  it('takes a stream’s (chunk, row) as it grows and calls anything at or below it a copy', () => {
    const marks = new Map<number, SourceMark>();
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 7, 10))).toBe(false);
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 7, 10))).toBe(true);
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 7, 9))).toBe(true);
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 6, 99))).toBe(true);
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 7, 11))).toBe(false);
    expect(isSourceCopy(marks, header(0xfffffffe, 3, 0x80000001, 0))).toBe(false);
    // Another connection, or another run, is another stream.
    expect(isSourceCopy(marks, header(0xfffffffe, 4, 7, 10))).toBe(false);
    expect(isSourceCopy(marks, header(1, 3, 7, 10))).toBe(false);
  });

  it('never calls a record without a valid header a copy', () => {
    const marks = new Map<number, SourceMark>();
    expect(isSourceCopy(marks, undefined)).toBe(false);
    expect(isSourceCopy(marks, new Uint8Array(3))).toBe(false);
    expect(marks.size).toBe(0);
  });

  it('remembers a bounded number of streams, forgetting the oldest', () => {
    const marks = new Map<number, SourceMark>();
    for (let c = 0; c <= MAX_SOURCE_STREAMS_PER_PARTITION; c++)
      isSourceCopy(marks, header(9, c % 65_536, 1, 1));
    expect(marks.size).toBe(MAX_SOURCE_STREAMS_PER_PARTITION);
    // The first stream was forgotten: its record is taken as new.
    expect(isSourceCopy(marks, header(9, 0, 1, 1))).toBe(false);
  });
});
