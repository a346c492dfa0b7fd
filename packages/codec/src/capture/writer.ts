import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { CodecError, invalidOptions } from '../errors.js';
import {
  CAPTURE_MAGIC,
  CAPTURE_RECORD_HEADER_SIZE,
  MAX_CAPTURE_PAYLOAD_FORMAT,
  toMicros,
  writeRecordHeader,
} from './format.js';

export interface CaptureWriterOptions {
  /**
   * Records are copied into chunks of this size (default 1 MiB) and each full chunk is one file
   * write: one syscall per ~40k trades instead of one per message.
   */
  chunkBytes?: number;
  /**
   * Bytes that may wait for the disk (default 64 MiB). `write` returns false past `chunkBytes * 4`
   * of backlog (await `drain()`), and throws CodecError('CAPTURE_BACKLOG_FULL') rather than grow past
   * this limit when the caller ignores that.
   */
  maxPendingBytes?: number;
}

/** A size a write stream's high-water mark (chunkBytes * 4) can be. */
const MAX_SIZE = 2 ** 31;

/** Every key of CaptureWriterOptions (documented there); maxPendingBytes is at least chunkBytes. */
const CAPTURE_WRITER_OPTIONS = {
  chunkBytes: { kind: 'integer', min: 64, max: MAX_SIZE, default: 1024 * 1024 },
  maxPendingBytes: { kind: 'integer', min: 64, max: MAX_SIZE },
} as const satisfies OptionsSchema;

/** A streaming capture-file writer: buffered, bounded, with stream-style backpressure. */
export class CaptureWriter {
  readonly #stream: WriteStream;
  readonly #chunkBytes: number;
  readonly #maxPending: number;
  #chunk: Buffer;
  #view: DataView;
  #fill = 0;
  #closed = false;
  #failure: Error | undefined;

  private constructor(stream: WriteStream, chunkBytes: number, maxPending: number) {
    this.#stream = stream;
    this.#chunkBytes = chunkBytes;
    this.#maxPending = maxPending;
    this.#chunk = Buffer.allocUnsafe(chunkBytes);
    this.#view = new DataView(this.#chunk.buffer, this.#chunk.byteOffset, this.#chunk.byteLength);
    stream.on('error', (error) => {
      this.#failure ??= error;
    });
    this.#chunk.set(CAPTURE_MAGIC, 0);
    this.#fill = CAPTURE_MAGIC.length;
  }

  /** Creates (or truncates) the file at `path` and writes the magic. */
  static async open(path: string, options: CaptureWriterOptions = {}): Promise<CaptureWriter> {
    const where = 'CaptureWriter options';
    const { chunkBytes, maxPendingBytes } = readOptions(CAPTURE_WRITER_OPTIONS, options, {
      where,
      fail: invalidOptions,
    });
    if (maxPendingBytes !== undefined && maxPendingBytes < chunkBytes)
      throw invalidOptions(`${where}: "maxPendingBytes" must be at least "chunkBytes" (${chunkBytes})`);
    const maxPending = maxPendingBytes ?? Math.max(64 * 1024 * 1024, chunkBytes);
    const stream = createWriteStream(path, { flags: 'w', highWaterMark: chunkBytes * 4 });
    try {
      await once(stream, 'open');
    } catch (cause) {
      throw new CodecError(
        'CAPTURE_WRITE_FAILED',
        `cannot create capture ${path}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    return new CaptureWriter(stream, chunkBytes, maxPending);
  }

  /**
   * Appends one record. Returns false when the backlog is above the stream's high-water mark: await
   * `drain()` before writing more. Throws CAPTURE_CLOSED after close, CAPTURE_WRITE_FAILED after a
   * disk error, CAPTURE_BACKLOG_FULL instead of exceeding maxPendingBytes.
   */
  write(payload: Uint8Array, receivedAtMicros: bigint | number): boolean {
    this.#checkOpen();
    const micros = toMicros(receivedAtMicros);
    if (micros === undefined) {
      throw new CodecError(
        'INVALID_CAPTURE',
        `receivedAtMicros must be a non-negative integer, got ${String(receivedAtMicros)}`,
      );
    }
    if (payload.length > MAX_CAPTURE_PAYLOAD_FORMAT) {
      throw new CodecError(
        'INVALID_CAPTURE',
        `a payload of ${payload.length} bytes exceeds the format's u32 length`,
      );
    }
    const size = CAPTURE_RECORD_HEADER_SIZE + payload.length;
    if (this.#stream.writableLength + this.#fill + size > this.#maxPending) {
      throw new CodecError(
        'CAPTURE_BACKLOG_FULL',
        `more than ${this.#maxPending} bytes wait for the disk; await drain() when write() returns false`,
        { retryable: true },
      );
    }
    if (this.#fill + size > this.#chunkBytes) this.#flushChunk();
    if (size > this.#chunkBytes) {
      // Larger than a chunk: a buffer of its own, written as is.
      const own = Buffer.allocUnsafe(size);
      writeRecordHeader(new DataView(own.buffer, own.byteOffset, own.byteLength), 0, payload.length, micros);
      own.set(payload, CAPTURE_RECORD_HEADER_SIZE);
      this.#stream.write(own);
    } else {
      writeRecordHeader(this.#view, this.#fill, payload.length, micros);
      this.#chunk.set(payload, this.#fill + CAPTURE_RECORD_HEADER_SIZE);
      this.#fill += size;
    }
    return !this.#stream.writableNeedDrain;
  }

  /** Hands buffered records to the file and resolves once the backlog is below the high-water mark. */
  async drain(): Promise<void> {
    this.#checkOpen();
    this.#flushChunk();
    // A destroyed stream never emits 'drain'; its failure was recorded by the error listener.
    if (this.#stream.writableNeedDrain && !this.#stream.destroyed) await once(this.#stream, 'drain');
    this.#throwIfFailed();
  }

  /** Writes what is buffered, closes the file; resolves when it is on disk (as far as close goes). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#failure === undefined) this.#flushChunk();
    this.#stream.end();
    try {
      // finished() also settles for a stream that already closed or failed, where once('close') would hang.
      await finished(this.#stream);
    } catch (cause) {
      this.#failure ??= cause as Error;
    }
    this.#throwIfFailed();
  }

  #flushChunk(): void {
    if (this.#fill === 0) return;
    this.#stream.write(this.#chunk.subarray(0, this.#fill));
    // The stream keeps the written chunk until it is on disk, so the next records go to a new one.
    this.#chunk = Buffer.allocUnsafe(this.#chunkBytes);
    this.#view = new DataView(this.#chunk.buffer, this.#chunk.byteOffset, this.#chunk.byteLength);
    this.#fill = 0;
  }

  #checkOpen(): void {
    if (this.#closed) throw new CodecError('CAPTURE_CLOSED', 'the capture writer is closed');
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) {
      throw new CodecError('CAPTURE_WRITE_FAILED', `capture write failed: ${this.#failure.message}`, {
        cause: this.#failure,
      });
    }
  }
}
