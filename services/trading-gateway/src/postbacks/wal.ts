/**
 * The receiver's write-ahead log: a postback is acknowledged (202) only after its record is
 * written and fdatasync'ed here, so a crash, a SIGKILL or a frozen Kafka can no longer lose an
 * update the service was told we have (the service does not resend after a 2xx).
 *
 * Layout of the directory: segments `wal-<first seq, 16 digits>.log` (records of wal-record.ts),
 * appended to only by the process that created them, and `checkpoint.json` with the highest
 * sequence written to Kafka (`kafkaThrough`) and stored in ClickHouse (`storedThrough`). On open,
 * every record above `storedThrough` is handed back for replay; a new segment is started, so a
 * torn tail of an old one is never appended to. A segment whose records are all stored is deleted.
 *
 * Group commit: appends that arrive while a write+sync is running wait for the next one, and each
 * round writes all waiting records with one writev and one fdatasync. Throughput then grows with
 * concurrency instead of being one sync per request.
 *
 * Bounded: at most `maxEntries` records and `maxBytes` bytes not yet stored; beyond that an append
 * fails with POSTBACK_BUSY (503, the sender retries later). A failed write or sync fails that
 * round's appends with POSTBACK_WAL_FAILED (503) and closes the segment: after a failed fsync the
 * kernel may have dropped the dirty pages, so the file is never trusted for appends again. A record
 * of a failed round can still be on disk and be replayed: harmless, since it was never
 * acknowledged and the store deduplicates by event key.
 */
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { PostbackError } from './errors.js';
import type { OrderEventSource } from './order-event.js';
import {
  decodeSegment,
  encodeRecord,
  type TailState,
  WAL_HEADER_BYTES,
  type WalRecord,
} from './wal-record.js';

export interface WalOptions {
  readonly dir: string;
  /** Records not yet stored; beyond it appends fail with POSTBACK_BUSY. */
  readonly maxEntries: number;
  /** Bytes of records not yet stored; beyond it appends fail with POSTBACK_BUSY. */
  readonly maxBytes: number;
  /** A segment past this size is closed and a new one started. */
  readonly segmentBytes: number;
  /** Largest body a record may hold (the receiver's body limit). */
  readonly maxBodyBytes: number;
}

export interface WalStats {
  /** Records written and not yet stored. */
  entries: number;
  bytes: number;
  segments: number;
  appended: number;
  /** Write+sync rounds (group commits). */
  syncs: number;
  /** Rounds that failed (disk full, I/O error). */
  failures: number;
  /** Appends refused because the log was full. */
  full: number;
  /** Segments found with a torn or corrupt tail on open (the crash cut a record in half). */
  tornTails: number;
  storedThrough: number;
  kafkaThrough: number;
}

interface Segment {
  readonly path: string;
  readonly firstSeq: number;
  lastSeq: number;
  size: number;
}

interface Waiter {
  readonly record: WalRecord;
  readonly buf: Buffer;
  readonly resolve: (record: WalRecord) => void;
  readonly reject: (error: unknown) => void;
}

const SEGMENT = /^wal-(\d{16})\.log$/;
const CHECKPOINT = 'checkpoint.json';

const segmentName = (firstSeq: number) => `wal-${String(firstSeq).padStart(16, '0')}.log`;

function walFailed(error: unknown): PostbackError {
  // The OS message (ENOSPC, EIO) helps the operator; it names the directory, never a secret.
  return new PostbackError('POSTBACK_WAL_FAILED', 'the write-ahead log cannot be written; retry later', {
    status: 503,
    retryable: true,
    cause: error,
  });
}

export class WriteAheadLog {
  private nextSeq: number;
  private readonly segments: Segment[];
  private active: { segment: Segment; handle: FileHandle } | undefined;
  private waiting: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private live = { entries: 0, bytes: 0 };
  private checkpoint: { storedThrough: number; kafkaThrough: number };
  private checkpointWrite: Promise<void> | undefined;
  private checkpointDirty = false;
  private closed = false;
  private readonly counters = { appended: 0, syncs: 0, failures: 0, full: 0, tornTails: 0 };

  private constructor(
    private readonly options: WalOptions,
    state: { nextSeq: number; segments: Segment[]; storedThrough: number; kafkaThrough: number },
  ) {
    this.nextSeq = state.nextSeq;
    this.segments = state.segments;
    this.checkpoint = { storedThrough: state.storedThrough, kafkaThrough: state.kafkaThrough };
  }

  /** Opens (creating) the directory and answers the log with the records still to be stored, in order. */
  static async open(options: WalOptions): Promise<{ wal: WriteAheadLog; pending: WalRecord[] }> {
    await mkdir(options.dir, { recursive: true });
    const checkpoint = await readCheckpoint(options.dir);
    const names = (await readdir(options.dir)).filter((n) => SEGMENT.test(n)).sort();
    const segments: Segment[] = [];
    const pending: WalRecord[] = [];
    let maxSeq = Math.max(checkpoint.storedThrough, checkpoint.kafkaThrough);
    let torn = 0;
    for (const name of names) {
      const path = join(options.dir, name);
      const firstSeq = Number(SEGMENT.exec(name)?.[1]);
      const decoded = decodeSegment(await readFile(path), options.maxBodyBytes);
      if (decoded.tail !== 'clean') torn += 1;
      let lastSeq = firstSeq - 1;
      for (const record of decoded.records) {
        lastSeq = Math.max(lastSeq, record.seq);
        if (record.seq > checkpoint.storedThrough) pending.push(record);
      }
      maxSeq = Math.max(maxSeq, lastSeq);
      segments.push({ path, firstSeq, lastSeq, size: decoded.records.reduce((n, r) => n + r.bytes, 0) });
    }
    // Leftovers of an interrupted checkpoint write.
    await rm(join(options.dir, `${CHECKPOINT}.tmp`), { force: true });
    const wal = new WriteAheadLog(options, {
      nextSeq: maxSeq + 1,
      segments,
      storedThrough: checkpoint.storedThrough,
      kafkaThrough: checkpoint.kafkaThrough,
    });
    wal.counters.tornTails = torn;
    wal.live = { entries: pending.length, bytes: pending.reduce((n, r) => n + r.bytes, 0) };
    await wal.dropStoredSegments();
    return { wal, pending };
  }

  get kafkaThrough(): number {
    return this.checkpoint.kafkaThrough;
  }

  get storedThrough(): number {
    return this.checkpoint.storedThrough;
  }

  stats(): WalStats {
    return {
      ...this.counters,
      entries: this.live.entries,
      bytes: this.live.bytes,
      segments: this.segments.length,
      storedThrough: this.checkpoint.storedThrough,
      kafkaThrough: this.checkpoint.kafkaThrough,
    };
  }

  /**
   * Resolves with the record once it is on disk and synced; rejects with POSTBACK_BUSY (full),
   * POSTBACK_WAL_FAILED (I/O) or POSTBACK_WAL_FAILED after close.
   */
  append(source: OrderEventSource, receivedAtMs: number, body: string): Promise<WalRecord> {
    if (this.closed) return Promise.reject(walFailed(new Error('write-ahead log closed')));
    const bytes = WAL_HEADER_BYTES + Buffer.byteLength(body, 'utf8');
    if (this.live.entries + 1 > this.options.maxEntries || this.live.bytes + bytes > this.options.maxBytes) {
      this.counters.full += 1;
      return Promise.reject(
        new PostbackError('POSTBACK_BUSY', 'receiver backlog full; retry later', {
          status: 503,
          retryable: true,
        }),
      );
    }
    const seq = this.nextSeq++;
    const buf = encodeRecord(seq, receivedAtMs, source, body);
    const record: WalRecord = { seq, receivedAtMs, source, body, bytes };
    this.live.entries += 1;
    this.live.bytes += bytes;
    return new Promise<WalRecord>((resolve, reject) => {
      this.waiting.push({ record, buf, resolve, reject });
      // setImmediate, not a microtask: requests parsed in the same turn of the loop join this round.
      if (!this.writing) {
        this.writing = new Promise<void>((r) => setImmediate(r)).then(() => this.writeRounds());
      }
    });
  }

  /** Records up to `seq` are in Kafka: a replay after a restart does not send them again. */
  markKafka(seq: number): void {
    if (seq <= this.checkpoint.kafkaThrough) return;
    this.checkpoint.kafkaThrough = seq;
    this.saveCheckpoint();
  }

  /**
   * Records up to `seq` (`entries` of them, `bytes` long) are stored: their room is given back
   * and segments holding nothing newer are deleted.
   */
  markStored(seq: number, entries: number, bytes: number): void {
    this.live.entries = Math.max(0, this.live.entries - entries);
    this.live.bytes = Math.max(0, this.live.bytes - bytes);
    if (seq <= this.checkpoint.storedThrough) return;
    this.checkpoint.storedThrough = seq;
    this.checkpoint.kafkaThrough = Math.max(this.checkpoint.kafkaThrough, seq);
    this.saveCheckpoint();
    void this.dropStoredSegments();
  }

  /** Waits for the running round and the checkpoint, then closes the segment. */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
    // A write can queue one more behind it; bounded: no new marks arrive once the pipeline closed.
    for (let i = 0; i < 3 && this.checkpointWrite; i++) await this.checkpointWrite;
    await this.active?.handle.close().catch(() => undefined);
    this.active = undefined;
  }

  private async writeRounds(): Promise<void> {
    while (this.waiting.length > 0) {
      const round = this.waiting;
      this.waiting = [];
      try {
        await this.writeRound(round);
        this.counters.syncs += 1;
        this.counters.appended += round.length;
        for (const w of round) w.resolve(w.record);
      } catch (error) {
        this.counters.failures += 1;
        const failed = walFailed(error);
        for (const w of round) {
          this.live.entries -= 1;
          this.live.bytes -= w.record.bytes;
          w.reject(failed);
        }
        const broken = this.active;
        this.active = undefined;
        await broken?.handle.close().catch(() => undefined);
      }
    }
    this.writing = undefined;
  }

  private async writeRound(round: readonly Waiter[]): Promise<void> {
    const first = round[0]?.record.seq ?? this.nextSeq;
    if (!this.active || this.active.segment.size >= this.options.segmentBytes) await this.startSegment(first);
    const active = this.active;
    if (!active) throw new Error('no segment open');
    const bufs = round.map((w) => w.buf);
    const total = bufs.reduce((n, b) => n + b.length, 0);
    const { bytesWritten } = await active.handle.writev(bufs);
    active.segment.size += bytesWritten;
    if (bytesWritten !== total) throw new Error(`short write (${bytesWritten} of ${total} bytes)`);
    await active.handle.datasync();
    active.segment.lastSeq = round[round.length - 1]?.record.seq ?? active.segment.lastSeq;
  }

  private async startSegment(firstSeq: number): Promise<void> {
    const previous = this.active;
    this.active = undefined;
    await previous?.handle.close();
    const path = join(this.options.dir, segmentName(firstSeq));
    const handle = await open(path, 'wx');
    const segment: Segment = { path, firstSeq, lastSeq: firstSeq - 1, size: 0 };
    try {
      // The new name must survive a power cut too, or its synced records vanish with it.
      await syncDirectory(this.options.dir);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    this.segments.push(segment);
    this.active = { segment, handle };
  }

  private async dropStoredSegments(): Promise<void> {
    const stored = this.checkpoint.storedThrough;
    const done = this.segments.filter((s) => s !== this.active?.segment && s.lastSeq <= stored);
    for (const s of done) this.segments.splice(this.segments.indexOf(s), 1);
    await Promise.all(done.map((s) => unlink(s.path).catch(() => undefined)));
  }

  /** Coalesced: at most one write in flight and one more queued behind it. */
  private saveCheckpoint(): void {
    if (this.checkpointWrite) {
      this.checkpointDirty = true;
      return;
    }
    const text = JSON.stringify(this.checkpoint);
    const tmp = join(this.options.dir, `${CHECKPOINT}.tmp`);
    // Not synced: a lost checkpoint only replays records that are stored, which dedupe drops.
    this.checkpointWrite = writeFile(tmp, text)
      .then(() => rename(tmp, join(this.options.dir, CHECKPOINT)))
      .catch(() => undefined)
      .finally(() => {
        this.checkpointWrite = undefined;
        if (this.checkpointDirty) {
          this.checkpointDirty = false;
          this.saveCheckpoint();
        }
      });
  }
}

async function readCheckpoint(dir: string): Promise<{ storedThrough: number; kafkaThrough: number }> {
  let text: string;
  try {
    text = await readFile(join(dir, CHECKPOINT), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { storedThrough: 0, kafkaThrough: 0 };
    throw new PostbackError('POSTBACK_WAL_INVALID', `cannot read ${CHECKPOINT} in ${dir}`, { cause: error });
  }
  try {
    const parsed = JSON.parse(text) as { storedThrough?: unknown; kafkaThrough?: unknown };
    const stored = Number(parsed.storedThrough);
    const kafka = Number(parsed.kafkaThrough);
    if (Number.isSafeInteger(stored) && stored >= 0 && Number.isSafeInteger(kafka) && kafka >= 0) {
      return { storedThrough: stored, kafkaThrough: kafka };
    }
  } catch {
    // falls through: an unreadable checkpoint replays everything, which dedupe makes safe
  }
  return { storedThrough: 0, kafkaThrough: 0 };
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export type { TailState };
