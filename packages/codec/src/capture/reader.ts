import { createReadStream } from 'node:fs';
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { CodecError, invalidOptions } from '../errors.js';
import { type CaptureRecord, DEFAULT_MAX_CAPTURE_PAYLOAD } from './format.js';
import { CaptureParser } from './parser.js';

export interface ReadCaptureOptions {
  /** Largest payload accepted, default 64 MiB; a larger length field means a corrupt file. */
  maxPayloadBytes?: number;
  /** Read size, default 1 MiB: large enough that few records span chunks. */
  chunkBytes?: number;
}

/** Every key of ReadCaptureOptions (documented there): sizes a u32 length can name. */
const READ_CAPTURE_OPTIONS = {
  maxPayloadBytes: { kind: 'integer', min: 1, max: 0xffffffff, default: DEFAULT_MAX_CAPTURE_PAYLOAD },
  chunkBytes: { kind: 'integer', min: 1, max: 0xffffffff, default: 1024 * 1024 },
} as const satisfies OptionsSchema;

/**
 * Streams the records of a capture file in order. Payloads are views into the read chunks (valid for
 * as long as the caller keeps them). Throws CodecError('INVALID_CAPTURE') for a missing magic, an
 * oversized length or a truncated last record (after yielding every complete record before it).
 */
export async function* readCapture(
  path: string,
  options: ReadCaptureOptions = {},
): AsyncIterable<CaptureRecord> {
  const { maxPayloadBytes, chunkBytes } = readOptions(READ_CAPTURE_OPTIONS, options, {
    where: 'readCapture options',
    fail: invalidOptions,
  });
  const parser = new CaptureParser(maxPayloadBytes);
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
