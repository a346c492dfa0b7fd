import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAPTURE_MAGIC,
  CaptureParser,
  type CaptureRecord,
  CaptureWriter,
  readCapture,
} from '../src/index.js';
import { concat, OHLC, TRADE } from './fixtures.js';

const dir = tempDir('codec-capture');

async function readAll(path: string, options = {}): Promise<CaptureRecord[]> {
  const out: CaptureRecord[] = [];
  for await (const record of readCapture(path, options))
    out.push({ ...record, payload: Uint8Array.from(record.payload) });
  return out;
}

describe('capture files', () => {
  it('writes the documented layout byte for byte', async () => {
    const path = join(dir, 'layout.cap');
    const writer = await CaptureWriter.open(path);
    writer.write(TRADE, 0x0102030405060708n);
    writer.write(new Uint8Array(0), 7);
    await writer.close();
    const bytes = new Uint8Array(await readFile(path));
    expect(bytes.subarray(0, 8)).toEqual(Uint8Array.from(Buffer.from('SVCCAP1\n')));
    expect(Array.from(bytes.subarray(8, 20))).toEqual([27, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(bytes.subarray(20, 47)).toEqual(TRADE);
    expect(Array.from(bytes.subarray(47))).toEqual([0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('round-trips many records through small chunks, large records and drain()', async () => {
    const path = join(dir, 'many.cap');
    const writer = await CaptureWriter.open(path, { chunkBytes: 256, maxPendingBytes: 1 << 20 });
    const written: CaptureRecord[] = [];
    const big = new Uint8Array(1000).map((_, i) => i & 0xff);
    for (let i = 0; i < 500; i++) {
      const payload = i % 97 === 0 ? big : concat(TRADE, i % 2 === 0 ? OHLC : new Uint8Array(0));
      const receivedAtMicros = 1_700_000_000_000_000n + BigInt(i);
      if (!writer.write(payload, receivedAtMicros)) await writer.drain();
      written.push({ payload, receivedAtMicros });
    }
    await writer.close();
    expect(await readAll(path, { chunkBytes: 100 })).toEqual(written);
    expect(await readAll(path)).toEqual(written);
  });

  it('refuses writes after close and bad times', async () => {
    const writer = await CaptureWriter.open(join(dir, 'closed.cap'));
    expect(() => writer.write(TRADE, -1)).toThrow(expect.objectContaining({ code: 'INVALID_CAPTURE' }));
    await writer.close();
    expect(() => writer.write(TRADE, 1)).toThrow(expect.objectContaining({ code: 'CAPTURE_CLOSED' }));
  });

  it('throws CAPTURE_BACKLOG_FULL instead of buffering without bound', async () => {
    const writer = await CaptureWriter.open(join(dir, 'backlog.cap'), {
      chunkBytes: 64,
      maxPendingBytes: 256,
    });
    const payload = new Uint8Array(40);
    expect(() => {
      for (let i = 0; i < 100; i++) writer.write(payload, i);
    }).toThrow(expect.objectContaining({ code: 'CAPTURE_BACKLOG_FULL', retryable: true }));
    await writer.close();
  });

  it('fails to open in a missing directory with CAPTURE_WRITE_FAILED', async () => {
    await expect(CaptureWriter.open(join(dir, 'missing', 'x.cap'))).rejects.toMatchObject({
      code: 'CAPTURE_WRITE_FAILED',
    });
    await expect(CaptureWriter.open(join(dir, 'x.cap'), { bogus: 1 } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'CaptureWriter options: unknown option "bogus" (allowed: chunkBytes, maxPendingBytes)',
    });
    await expect(
      CaptureWriter.open(join(dir, 'x.cap'), { chunkBytes: 4096, maxPendingBytes: 1024 }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('"maxPendingBytes"'),
    });
  });

  it('refuses an unknown readCapture option with the allowed list', async () => {
    await expect(readAll(join(dir, 'never-opened.cap'), { chunk: 1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'readCapture options: unknown option "chunk" (allowed: maxPayloadBytes, chunkBytes)',
    });
    await expect(readAll(join(dir, 'never-opened.cap'), { chunkBytes: 0 })).rejects.toMatchObject({
      message: 'readCapture options: "chunkBytes" must be an integer from 1 to 4294967295',
    });
  });

  it('refuses a wrong magic, a truncated record and an oversized length', async () => {
    const bad = join(dir, 'bad.cap');
    await writeFile(bad, 'NOTACAP!');
    await expect(readAll(bad)).rejects.toMatchObject({ code: 'INVALID_CAPTURE' });

    const truncated = join(dir, 'truncated.cap');
    const good = join(dir, 'good.cap');
    const writer = await CaptureWriter.open(good);
    writer.write(TRADE, 1);
    writer.write(OHLC, 2);
    await writer.close();
    const bytes = await readFile(good);
    await writeFile(truncated, bytes.subarray(0, bytes.length - 3));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const r of readCapture(truncated)) seen.push(r.payload.length);
      })(),
    ).rejects.toThrow(/truncated/);
    expect(seen).toEqual([27]);

    const huge = join(dir, 'huge.cap');
    await writeFile(huge, concat(CAPTURE_MAGIC, Uint8Array.from([0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0])));
    await expect(readAll(huge)).rejects.toThrow(/above the limit/);
    await expect(readAll(join(dir, 'nope.cap'))).rejects.toMatchObject({ code: 'CAPTURE_READ_FAILED' });
  });

  it('parses the same records however the file is split into chunks (property)', () => {
    const recordArb = fc.record({
      payload: fc.uint8Array({ maxLength: 60 }),
      receivedAtMicros: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    });
    fc.assert(
      fc.property(
        fc.array(recordArb, { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }),
        (records, cuts) => {
          const parts: Uint8Array[] = [CAPTURE_MAGIC];
          for (const r of records) {
            const header = new Uint8Array(12);
            const view = new DataView(header.buffer);
            view.setUint32(0, r.payload.length, true);
            view.setBigUint64(4, r.receivedAtMicros, true);
            parts.push(header, r.payload);
          }
          const file = concat(...parts);
          const parser = new CaptureParser(1 << 20);
          const out: CaptureRecord[] = [];
          let at = 0;
          for (let i = 0; at < file.length; i++) {
            const size = cuts[i % cuts.length]!;
            parser.push(file.subarray(at, at + size), out);
            at += size;
          }
          parser.end();
          expect(
            out.map((r) => ({ payload: r.payload.slice(), receivedAtMicros: r.receivedAtMicros })),
          ).toEqual(records);
        },
      ),
      { numRuns: 300 },
    );
  });
});
