/**
 * The write-ahead log of one feed connection in this run: its frames appended in arrival order, its
 * chunk ledger (what went to decoding, what Kafka acknowledged), segments rotated at chunk
 * boundaries and deleted once every chunk in them is acknowledged (segment-layout.ts).
 *
 * Writes are synchronous (one writev per frame, on the socket thread, before the frame goes on to
 * decoding): when `append` returns, the frame is in the kernel and survives the process. A frame is
 * a few hundred bytes to a few kilobytes and a writev of it costs microseconds; an asynchronous
 * write would leave a window in which a SIGKILL loses frames already handed on.
 *
 * A frame that cannot be logged (the log's bound, a full disk, an I/O error) opens a gap: nothing
 * more of the connection is logged until the next chunk boundary, where a new segment starts. A
 * chunk is either logged from its first frame on or not at all, so a replayed chunk is always a
 * prefix of the original and its rows keep their source identities. Every frame of a gap is
 * counted by the caller, and the feed itself keeps flowing to Kafka.
 */
import { closeSync, openSync, rmSync, writeSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTURE_MAGIC, CAPTURE_RECORD_HEADER_SIZE } from '@feedpipe/codec';
import { IngestorError } from '../errors.js';
import {
  framesFileOf,
  LEDGER_ACKED,
  LEDGER_ENTRY_BYTES,
  LEDGER_SEALED,
  ledgerEntry,
  ledgerFileOf,
} from './segment-layout.js';

/** Why a frame was not logged (ingestor_wal_unlogged_frames_total). */
export type UnloggedReason = 'full' | 'disk_full' | 'io_error';
export const UNLOGGED_REASONS: readonly UnloggedReason[] = ['full', 'disk_full', 'io_error'];

/** What a connection's log asks of the whole log: room under its bound, and where to report. */
export interface LogSpace {
  readonly dir: string;
  readonly segmentBytes: number;
  /** Takes `bytes` of the bound; false when they do not fit. */
  reserve(bytes: number): boolean;
  release(bytes: number): void;
  /** Why no segment may be opened now (within the back-off after a failure), else undefined. */
  blockedBy(): UnloggedReason | undefined;
  failed(error: IngestorError): void;
  /** A segment file descriptor written to since its last sync. */
  dirty(fd: number): void;
  /** A descriptor no longer written to: closed now, or after the sync in progress. */
  retire(fd: number): void;
}

interface OpenSegment {
  readonly framesPath: string;
  readonly ledgerPath: string;
  readonly framesFd: number;
  readonly ledgerFd: number;
  bytes: number;
}

interface ClosedSegment {
  readonly framesPath: string;
  readonly ledgerPath: string;
  readonly bytes: number;
  /** The last chunk with frames in it; deletable once Kafka acknowledged it. */
  readonly lastChunk: number;
}

const header = Buffer.alloc(CAPTURE_RECORD_HEADER_SIZE);

/** A write the kernel took only in part: the file system ran out of room in the middle of it. */
function shortWrite(what: string): Error {
  return Object.assign(new Error(`short write of ${what}`), { code: 'ENOSPC' });
}

function failureOf(error: unknown, action: string): IngestorError {
  const code = (error as NodeJS.ErrnoException).code;
  const message = `feed log: cannot ${action}: ${(error as Error).message}`;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new IngestorError('WAL_DISK_FULL', message, { cause: error, retryable: true });
  return new IngestorError('WAL_IO_FAILED', message, { cause: error, retryable: true });
}

export class ConnectionLog {
  readonly #space: LogSpace;
  readonly #run: number;
  readonly #connection: number;
  #segment: OpenSegment | undefined;
  readonly #closed: ClosedSegment[] = [];
  /** Frames the connection delivered, logged or not (the pipeline took each one). */
  #offered = 0;
  /** Frames of the chunks sealed so far, and their number (the next chunk's sequence). */
  #sealedFrames = 0;
  #sealedChunks = 0;
  #ackedThrough = -1;
  /** The reason of the current gap; frames are not logged until the next chunk boundary. */
  #gap: UnloggedReason | undefined;

  constructor(space: LogSpace, run: number, connection: number) {
    this.#space = space;
    this.#run = run;
    this.#connection = connection;
  }

  /** Logs one frame; undefined when logged, else why not (the caller counts it). */
  append(frame: Uint8Array, receivedAtMicros: number): UnloggedReason | undefined {
    this.#offered += 1;
    if (this.#gap !== undefined) return this.#gap;
    // Without a segment this frame starts a chunk: a gap ends and a rotation happens only there.
    if (!this.#segment) {
      const blocked = this.#space.blockedBy();
      if (blocked !== undefined) return this.#openGap(blocked);
      const unopened = this.#open();
      if (unopened !== undefined) return unopened;
    }
    const segment = this.#segment as OpenSegment;
    const size = CAPTURE_RECORD_HEADER_SIZE + frame.byteLength;
    if (!this.#space.reserve(size)) return this.#openGap('full');
    header.writeUInt32LE(frame.byteLength, 0);
    header.writeBigUInt64LE(BigInt(receivedAtMicros), 4);
    try {
      const written = writevSync(segment.framesFd, [header, frame]);
      if (written !== size) throw shortWrite(`${written} of ${size} bytes`);
    } catch (error) {
      this.#space.release(size);
      return this.#fail(error, `append to ${segment.framesPath}`);
    }
    segment.bytes += size;
    this.#space.dirty(segment.framesFd);
    return undefined;
  }

  /** The connection's next chunk (of `frames` frames) was handed to decoding. */
  sealed(frames: number): void {
    this.#sealedFrames += frames;
    this.#sealedChunks += 1;
    if (this.#segment && this.#gap === undefined) this.#writeLedger(LEDGER_SEALED, frames);
    if (this.#offered !== this.#sealedFrames) return;
    // A chunk boundary: a gap ends here, and a full segment gives way to the next.
    if (this.#gap !== undefined) this.#gap = undefined;
    else if (this.#segment && this.#segment.bytes >= this.#space.segmentBytes) this.#closeSegment();
  }

  /** Kafka acknowledged every chunk of the connection up to `sequence`: their segments go. */
  acknowledged(sequence: number): void {
    if (sequence <= this.#ackedThrough) return;
    this.#ackedThrough = sequence;
    if (this.#segment && this.#gap === undefined) this.#writeLedger(LEDGER_ACKED, sequence);
    while (this.#closed.length > 0 && (this.#closed[0] as ClosedSegment).lastChunk <= sequence) {
      this.#remove(this.#closed.shift() as ClosedSegment);
    }
  }

  /** Closes the files; with `acknowledgedAll` (a drained stop) every segment is deleted. */
  close(acknowledgedAll: boolean): void {
    if (this.#segment) this.#closeSegment();
    if (!acknowledgedAll) return;
    for (const segment of this.#closed.splice(0)) this.#remove(segment);
  }

  #openGap(reason: UnloggedReason): UnloggedReason {
    this.#gap = reason;
    // A segment cut inside a chunk holds a prefix of it; later frames go to a new segment.
    if (this.#segment) this.#closeSegment();
    return reason;
  }

  /** Opens the next segment; undefined when open, else why not (a gap is open then). */
  #open(): UnloggedReason | undefined {
    const framesFile = framesFileOf({
      run: this.#run,
      connection: this.#connection,
      firstChunk: this.#sealedChunks,
    });
    const framesPath = join(this.#space.dir, framesFile);
    const ledgerPath = join(this.#space.dir, ledgerFileOf(framesFile));
    if (!this.#space.reserve(CAPTURE_MAGIC.length)) return this.#openGap('full');
    const opened: number[] = [];
    try {
      const framesFd = openSync(framesPath, 'w');
      opened.push(framesFd);
      const ledgerFd = openSync(ledgerPath, 'w');
      opened.push(ledgerFd);
      if (writeSync(framesFd, CAPTURE_MAGIC) !== CAPTURE_MAGIC.length) throw shortWrite('the magic');
      this.#segment = { framesPath, ledgerPath, framesFd, ledgerFd, bytes: CAPTURE_MAGIC.length };
      return undefined;
    } catch (error) {
      // A segment that could not even start holds nothing: it goes at once.
      this.#space.release(CAPTURE_MAGIC.length);
      for (const fd of opened) closeSync(fd);
      rmSync(framesPath, { force: true });
      rmSync(ledgerPath, { force: true });
      return this.#fail(error, `open segment ${framesPath}`);
    }
  }

  /** A write that failed: said once by the log (typed), and a gap from here to the next chunk. */
  #fail(error: unknown, action: string): UnloggedReason {
    const failure = failureOf(error, action);
    this.#space.failed(failure);
    return this.#openGap(failure.code === 'WAL_DISK_FULL' ? 'disk_full' : 'io_error');
  }

  #writeLedger(kind: number, value: number): void {
    const segment = this.#segment as OpenSegment;
    try {
      if (writeSync(segment.ledgerFd, ledgerEntry(kind, value)) !== LEDGER_ENTRY_BYTES)
        throw shortWrite('a ledger entry');
      this.#space.dirty(segment.ledgerFd);
    } catch (error) {
      this.#fail(error, `write ${segment.ledgerPath}`);
    }
  }

  #closeSegment(): void {
    const segment = this.#segment as OpenSegment;
    this.#segment = undefined;
    this.#space.retire(segment.framesFd);
    this.#space.retire(segment.ledgerFd);
    // The chunk being filled (a cut segment) or the last sealed one is the last with frames here.
    const lastChunk = this.#offered === this.#sealedFrames ? this.#sealedChunks - 1 : this.#sealedChunks;
    const closed = {
      framesPath: segment.framesPath,
      ledgerPath: segment.ledgerPath,
      bytes: segment.bytes,
      lastChunk,
    };
    if (lastChunk <= this.#ackedThrough) this.#remove(closed);
    else this.#closed.push(closed);
  }

  #remove(segment: ClosedSegment): void {
    rmSync(segment.framesPath, { force: true });
    rmSync(segment.ledgerPath, { force: true });
    this.#space.release(segment.bytes);
  }
}
