import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CaptureWriter } from '../capture/writer.js';
import { FrameBuilder } from '../encode/frame-builder.js';
import { CodecError } from '../errors.js';
import { recordFromJson } from '../json/record-parse.js';

export interface EncodeSummary {
  frames: number;
  packets: number;
}

/**
 * `feed-codec encode`: NDJSON records (as `decode` prints them) to a capture file. Consecutive lines
 * with the same `frame` value become one frame; without `frame`, consecutive lines with the same
 * `receivedAt`; a line with neither is a frame of its own. A frame's receive time is its first line's
 * `receivedAt`, or 0 when absent (deterministic output rather than the time of encoding).
 */
export async function encodeNdjson(input: Readable, outputPath: string): Promise<EncodeSummary> {
  const writer = await CaptureWriter.open(outputPath);
  const builder = new FrameBuilder();
  let frames = 0;
  let packets = 0;
  let groupKey: string | undefined;
  let groupMicros = 0;
  const flush = async (): Promise<void> => {
    if (builder.packetCount === 0) return;
    if (!writer.write(builder.view(), groupMicros)) await writer.drain();
    frames++;
    packets += builder.packetCount;
    builder.reset();
  };
  try {
    let lineNumber = 0;
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      lineNumber++;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (cause) {
        throw new CodecError('INVALID_RECORD', `line ${lineNumber}: not valid JSON`, { cause });
      }
      const { key, micros } = grouping(parsed, lineNumber);
      if (key === undefined || key !== groupKey) {
        await flush();
        groupMicros = micros;
      }
      groupKey = key;
      try {
        builder.record(recordFromJson(parsed));
      } catch (cause) {
        if (cause instanceof CodecError)
          throw new CodecError(cause.code, `line ${lineNumber}: ${cause.message}`, { cause });
        throw cause;
      }
    }
    await flush();
  } finally {
    await writer.close();
  }
  return { frames, packets };
}

function grouping(parsed: unknown, lineNumber: number): { key: string | undefined; micros: number } {
  const o = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const { frame, receivedAt } = o;
  if (receivedAt !== undefined && !(Number.isSafeInteger(receivedAt) && (receivedAt as number) >= 0)) {
    throw new CodecError('INVALID_RECORD', `line ${lineNumber}: receivedAt must be a non-negative integer`);
  }
  const micros = (receivedAt as number | undefined) ?? 0;
  if (frame !== undefined) return { key: `f${String(frame)}`, micros };
  if (receivedAt !== undefined) return { key: `t${micros}`, micros };
  return { key: undefined, micros };
}
