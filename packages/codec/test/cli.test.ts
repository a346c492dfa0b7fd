import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { decodeCapture } from '../src/cli/decode-command.js';
import { encodeNdjson } from '../src/cli/encode-command.js';
import { CaptureWriter } from '../src/index.js';
import { concat, ERROR_807, OHLC, PREV_CLOSE, TRADE, withCode, withLength } from './fixtures.js';

const dir = tempDir('codec-cli');
const bin = fileURLToPath(new URL('../bin/feed-codec.mjs', import.meta.url));

async function capture(name: string, frames: Array<[Uint8Array, number]>): Promise<string> {
  const path = join(dir, name);
  const writer = await CaptureWriter.open(path);
  for (const [payload, micros] of frames) writer.write(payload, micros);
  await writer.close();
  return path;
}

async function collect(path: string): Promise<{ lines: string[]; summary: unknown }> {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  const summary = await decodeCapture(path, out);
  return { lines: chunks.join('').split('\n').filter(Boolean), summary };
}

describe('feed-codec decode / encode', () => {
  it('prints one record per line with receivedAt and frame, and counts everything', async () => {
    const path = await capture('mixed.cap', [
      [concat(TRADE, OHLC), 1000],
      [concat(PREV_CLOSE, withCode(TRADE, 99), TRADE.subarray(0, 5)), 2000],
      [ERROR_807, 3000],
    ]);
    const { lines, summary } = await collect(path);
    expect(lines).toEqual([
      '{"type":"trade","segment":14,"securityId":12345,"ltp":123.45,"volume":1000,"ltt":1700000000,"lut":1700000001,"receivedAt":1000,"frame":0}',
      '{"type":"ohlc","segment":14,"securityId":12345,"open":100.5,"close":101.25,"high":102.75,"low":99.5,"receivedAt":1000,"frame":0}',
      '{"type":"prev_close","segment":14,"securityId":12345,"prevClose":120.1,"receivedAt":2000,"frame":1}',
      '{"type":"error","segment":0,"securityId":0,"code":807,"receivedAt":3000,"frame":2}',
    ]);
    expect(summary).toEqual({
      frames: 3,
      packets: 4,
      byType: { trade: 1, ohlc: 1, market_status: 0, prev_close: 1, circuit_limit: 0, week52: 0, error: 1 },
      malformed: 1,
      unknown: 1,
    });
  });

  it('encode rebuilds the frames from decode output', async () => {
    const frames: Array<[Uint8Array, number]> = [
      [concat(TRADE, OHLC, TRADE), 10],
      [concat(PREV_CLOSE), 10],
      [concat(OHLC, TRADE), 25],
    ];
    const original = await capture('original.cap', frames);
    const { lines } = await collect(original);
    const rebuilt = join(dir, 'rebuilt.cap');
    expect(await encodeNdjson(Readable.from([`${lines.join('\n')}\n`]), rebuilt)).toEqual({
      frames: 3,
      packets: 6,
    });
    expect(await readFile(rebuilt)).toEqual(await readFile(original));
  });

  it('encode groups by receivedAt without frame, and makes one frame per bare line', async () => {
    const trade = '{"type":"trade","segment":14,"securityId":1,"ltp":1.5,"volume":2,"ltt":3,"lut":4';
    const text = `${trade},"receivedAt":7}\n${trade},"receivedAt":7}\n\n${trade}}\n${trade}}\n`;
    const out = join(dir, 'grouped.cap');
    expect(await encodeNdjson(Readable.from([text]), out)).toEqual({ frames: 3, packets: 4 });
  });

  it('encode names the line of a bad record', async () => {
    const out = join(dir, 'bad.cap');
    await expect(encodeNdjson(Readable.from(['{"type":"trade"}\n']), out)).rejects.toThrow(/line 1: segment/);
    await expect(encodeNdjson(Readable.from(['\n{oops\n']), out)).rejects.toThrow(/line 2: not valid JSON/);
  });

  it('runs as a binary: decode to stdout, summary to stderr, usage errors exit 2', async () => {
    const path = await capture('bin.cap', [[concat(TRADE, withLength(OHLC, 0)), 5]]);
    const run = promisify(execFile);
    const { stdout, stderr } = await run(process.execPath, [bin, 'decode', path]);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stderr.trim())).toMatchObject({ frames: 1, packets: 1 });
    const ndjson = join(dir, 'bin.ndjson');
    await writeFile(ndjson, stdout);
    const rebuilt = join(dir, 'bin-rebuilt.cap');
    await run(process.execPath, [bin, 'encode', '--input', ndjson, '--output', rebuilt]);
    expect((await readFile(rebuilt)).length).toBe(8 + 12 + 27);
    await expect(run(process.execPath, [bin, 'frobnicate'])).rejects.toMatchObject({ code: 2 });
    await expect(run(process.execPath, [bin, 'decode', join(dir, 'missing.cap')])).rejects.toMatchObject({
      code: 1,
    });
  });
});
