import { createReadStream } from 'node:fs';
import { CodecError } from '../errors.js';
import { type CaptureRecord, DEFAULT_MAX_CAPTURE_PAYLOAD } from './format.js';
import { CaptureParser } from './parser.js';

export interface ReadCaptureOptions {
  /** Largest payload accepted, default 64 MiB; a larger length field means a corrupt file. */
  maxPayloadBytes?: number;
  /** Read size, default 1 MiB: large enough that few records span chunks. */
  chunkBytes?: number;
}

const OPTION_KEYS = new Set(['maxPayloadBytes', 'chunkBytes']);

/**
 * Streams the records of a capture file in order. Payloads are views into the read chunks (valid for
 * as long as the caller keeps them). Throws CodecError('INVALID_CAPTURE') for a missing magic, an
 * oversized length or a truncated last record (after yielding every complete record before it).
 */
export async function* readCapture(
  path: string,
  options: ReadCaptureOptions = {},
): AsyncIterable<CaptureRecord> {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key))
      throw new CodecError('INVALID_OPTIONS', `unknown readCapture option ${JSON.stringify(key)}`);
  }
  const maxPayload = positiveInteger('maxPayloadBytes', options.maxPayloadBytes, DEFAULT_MAX_CAPTURE_PAYLOAD);
  const chunkBytes = positiveInteger('chunkBytes', options.chunkBytes, 1024 * 1024);
  const parser = new CaptureParser(maxPayload);
  const stream = createReadStream(path, { highWaterMark: chunkBytes });
  const records: CaptureRecord[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parser.push(chunk, records);
      for (const record of records) yield record;
      records.length = 0;
    }
  } catch (cause) {
    if (cause instanceof CodecError) throw cause;
    throw new CodecError('CAPTURE_READ_FAILED', `cannot read capture ${path}: ${(cause as Error).message}`, {
      cause,
    });
  } finally {
    stream.destroy();
  }
  parser.end();
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 0xffffffff) {
    throw new CodecError(
      'INVALID_OPTIONS',
      `${name} must be an integer in 1..4294967295, got ${String(value)}`,
    );
  }
  return value;
}
