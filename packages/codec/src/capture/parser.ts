import { CodecError } from '../errors.js';
import { CAPTURE_MAGIC, CAPTURE_RECORD_HEADER_SIZE, type CaptureRecord } from './format.js';

/**
 * Incremental capture parser: feed it file chunks of any size, get whole records. A payload that
 * lies inside one chunk is handed out as a view of that chunk (chunks are never reused by fs
 * streams, so the view stays valid); only a record spanning chunks is copied, once, into a buffer
 * of its exact size.
 */
export class CaptureParser {
  readonly #maxPayload: number;
  #magicSeen = 0;
  /** Bytes of a record header split across chunks. */
  readonly #header = new Uint8Array(CAPTURE_RECORD_HEADER_SIZE);
  #headerFill = 0;
  /** A payload spanning chunks, being assembled. */
  #spanning: Uint8Array | undefined;
  #spanningFill = 0;
  #spanningMicros = 0n;
  /** File offset of the record being parsed, for error messages. */
  #recordOffset = 0;
  #consumed = 0;

  constructor(maxPayload: number) {
    this.#maxPayload = maxPayload;
  }

  /** Parses `chunk`, appending the records it completes to `out`. */
  push(chunk: Uint8Array, out: CaptureRecord[]): void {
    let at = 0;
    const n = chunk.length;
    if (this.#magicSeen < CAPTURE_MAGIC.length) {
      while (at < n && this.#magicSeen < CAPTURE_MAGIC.length) {
        if (chunk[at] !== CAPTURE_MAGIC[this.#magicSeen]) {
          throw new CodecError('INVALID_CAPTURE', 'not a capture file (the magic SVCCAP1 is missing)');
        }
        at++;
        this.#magicSeen++;
      }
      this.#recordOffset = CAPTURE_MAGIC.length;
    }
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (at < n) {
      if (this.#spanning !== undefined) {
        const take = Math.min(this.#spanning.length - this.#spanningFill, n - at);
        this.#spanning.set(chunk.subarray(at, at + take), this.#spanningFill);
        this.#spanningFill += take;
        at += take;
        if (this.#spanningFill === this.#spanning.length) {
          out.push({ payload: this.#spanning, receivedAtMicros: this.#spanningMicros });
          this.#recordOffset += CAPTURE_RECORD_HEADER_SIZE + this.#spanning.length;
          this.#spanning = undefined;
        }
        continue;
      }
      let length: number;
      let micros: bigint;
      if (this.#headerFill === 0 && n - at >= CAPTURE_RECORD_HEADER_SIZE) {
        length = view.getUint32(at, true);
        micros = view.getBigUint64(at + 4, true);
        at += CAPTURE_RECORD_HEADER_SIZE;
      } else {
        const take = Math.min(CAPTURE_RECORD_HEADER_SIZE - this.#headerFill, n - at);
        this.#header.set(chunk.subarray(at, at + take), this.#headerFill);
        this.#headerFill += take;
        at += take;
        if (this.#headerFill < CAPTURE_RECORD_HEADER_SIZE) break;
        const headerView = new DataView(this.#header.buffer);
        length = headerView.getUint32(0, true);
        micros = headerView.getBigUint64(4, true);
        this.#headerFill = 0;
      }
      if (length > this.#maxPayload) {
        throw new CodecError(
          'INVALID_CAPTURE',
          `record at byte ${this.#recordOffset} claims a ${length}-byte payload, above the limit of ${this.#maxPayload}`,
        );
      }
      if (n - at >= length) {
        out.push({ payload: chunk.subarray(at, at + length), receivedAtMicros: micros });
        at += length;
        this.#recordOffset += CAPTURE_RECORD_HEADER_SIZE + length;
      } else {
        this.#spanning = new Uint8Array(length);
        this.#spanningFill = 0;
        this.#spanningMicros = micros;
      }
    }
    this.#consumed += n;
  }

  /** Checks that the input ended on a record boundary. */
  end(): void {
    if (this.#magicSeen < CAPTURE_MAGIC.length) {
      throw new CodecError('INVALID_CAPTURE', 'not a capture file (shorter than the magic SVCCAP1)');
    }
    if (this.#spanning !== undefined || this.#headerFill > 0) {
      throw new CodecError(
        'INVALID_CAPTURE',
        `capture ends inside the record at byte ${this.#recordOffset} (file of ${this.#consumed} bytes is truncated)`,
      );
    }
  }
}
