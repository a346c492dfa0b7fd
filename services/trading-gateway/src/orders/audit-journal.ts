/**
 * The audit journal: the order path's audit rows are appended to a local file and fdatasync'ed
 * (the request row before the order is sent, the outcome row before the answer), and reach
 * market.order_audit behind the answer, in batches (audit-drain.ts). A store statement costs an
 * order 0.3-1.5 s on a starved host (under `npm start` it also crosses to npm start's process and
 * waits on the pipeline's lane); an fdatasync of a few hundred bytes costs milliseconds. Until a row
 * is drained the journal is its only durable copy, so the gateway reads its rows here too
 * (`pendingOf`): idempotency and ownership see them before the store does.
 *
 * Files: `audit-<number, 16 digits>.log`, lines of audit-journal-line.ts, appended to only by the
 * process that created them. On open every whole line of every file is handed back as recovered:
 * whether its row reached the store before the crash is not known here (a SIGKILL can fall between
 * an insert and its settle), so the drain asks the store before inserting a recovered row, which
 * makes each row land once. A new process always starts a new file, so a torn tail is never
 * appended to. A file is deleted once all its rows are drained and it is no longer appended to.
 *
 * Group commit: appends that arrive while a write+sync runs wait for the next one; each round
 * writes the waiting lines with one writev and one fdatasync.
 *
 * Bounded: at most `maxRows` rows and `maxBytes` bytes not yet drained. Past either, a `bounded`
 * append (a request row: nothing has been sent yet) fails with AUDIT_BACKLOG_FULL and the order is
 * refused; an outcome row is `always` taken, because its order already exists and dropping the row
 * would lose its trace (outcome rows are bounded anyway: one or a few per request row admitted). A
 * failed write or sync fails its round with AUDIT_JOURNAL_FAILED (naming ENOSPC when the disk is
 * full) and the file is never appended to again: after a failed fsync the kernel may have dropped
 * its dirty pages.
 */
import { type FileHandle, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TradingGatewayError } from '../errors.js';
import { decodeJournalLines, encodeJournalLine } from './audit-journal-line.js';
import type { AuditRow } from './audit-log.js';

export interface AuditJournalOptions {
  /** A directory of its own on a persistent disk. */
  readonly dir: string;
  /** Rows not yet drained; beyond it new orders are refused with AUDIT_BACKLOG_FULL. */
  readonly maxRows: number;
  /** Bytes of rows not yet drained; beyond it new orders are refused with AUDIT_BACKLOG_FULL. */
  readonly maxBytes: number;
  /** A file past this size is closed and a new one started (deleted once drained). */
  readonly fileBytes: number;
}

/** A row as journaled: its time is taken when it is journaled, not when it is drained. */
export interface JournaledRow {
  readonly atMs: number;
  readonly row: AuditRow;
}

interface JournalFile {
  readonly path: string;
  size: number;
  /** Rows of this file not drained yet (and not failed). */
  undrained: number;
}

export interface JournalEntry {
  readonly item: JournaledRow;
  readonly seq: number;
  /** Read back from an earlier process's file: the store may hold it already. */
  readonly recovered: boolean;
  readonly bytes: number;
  readonly file: JournalFile | undefined;
}

interface Appending {
  readonly item: JournaledRow;
  readonly seq: number;
  readonly line: Buffer;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface AuditJournalStats {
  /** Rows appended (or being appended) and not yet drained. */
  rows: number;
  bytes: number;
  /** Journal time of the oldest row not yet drained; undefined when none is waiting. */
  oldestAtMs: number | undefined;
  files: number;
  /** Rows read back from earlier processes' files at open. */
  recovered: number;
  /** Bounded appends refused because the journal was full. */
  refusedFull: number;
  /** Rows whose write or sync failed. */
  failedWrites: number;
}

const FILE = /^audit-(\d{16})\.log$/;
const fileName = (n: number) => `audit-${String(n).padStart(16, '0')}.log`;

function journalFailed(dir: string, error: unknown): TradingGatewayError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = code === 'ENOSPC' ? `its disk is full (ENOSPC in ${dir})` : `${code ?? 'I/O error'} in ${dir}`;
  return new TradingGatewayError(
    'AUDIT_JOURNAL_FAILED',
    `the order audit journal cannot be written: ${why}; nothing was sent`,
    { cause: error, retryable: true },
  );
}

export class AuditJournal {
  readonly #options: AuditJournalOptions;
  /** Synced rows not yet drained, oldest first. */
  readonly #pending: JournalEntry[] = [];
  readonly #byCorrelation = new Map<string, JournalEntry[]>();
  readonly #files: JournalFile[];
  readonly #drainWaiters: { seq: number; resolve: () => void }[] = [];
  readonly #listeners: (() => void)[] = [];
  #waiting: Appending[] = [];
  #round: readonly Appending[] = [];
  #writing: Promise<void> | undefined;
  #active: { file: JournalFile; handle: FileHandle } | undefined;
  #nextFile: number;
  #nextSeq = 1;
  #live = { rows: 0, bytes: 0 };
  #closed = false;
  readonly #counters = { recovered: 0, refusedFull: 0, failedWrites: 0 };

  private constructor(options: AuditJournalOptions, files: JournalFile[], nextFile: number) {
    this.#options = options;
    this.#files = files;
    this.#nextFile = nextFile;
  }

  /** Opens (creating) the directory; the rows of earlier processes' files are pending, recovered. */
  static async open(options: AuditJournalOptions): Promise<AuditJournal> {
    await mkdir(options.dir, { recursive: true });
    const names = (await readdir(options.dir)).filter((n) => FILE.test(n)).sort();
    const last = names.at(-1);
    const journal = new AuditJournal(options, [], last ? Number(FILE.exec(last)?.[1]) + 1 : 1);
    for (const name of names) {
      const path = join(options.dir, name);
      const { values } = decodeJournalLines(await readFile(path));
      const file: JournalFile = { path, size: 0, undrained: 0 };
      journal.#files.push(file);
      for (const value of values) {
        const bytes = encodeJournalLine(value).length;
        file.size += bytes;
        file.undrained += 1;
        journal.#addPending({
          item: value as JournaledRow,
          seq: journal.#nextSeq++,
          recovered: true,
          bytes,
          file,
        });
      }
    }
    journal.#counters.recovered = journal.#pending.length;
    journal.#live = {
      rows: journal.#pending.length,
      bytes: journal.#pending.reduce((n, e) => n + e.bytes, 0),
    };
    await journal.#dropDrainedFiles();
    return journal;
  }

  get dir(): string {
    return this.#options.dir;
  }

  /** `listener` is called whenever synced rows are waiting to be drained. */
  onPending(listener: () => void): void {
    this.#listeners.push(listener);
    if (this.#pending.length > 0) listener();
  }

  /**
   * Resolves once the row is on disk and synced. `bounded` rows are refused when the journal is
   * full (AUDIT_BACKLOG_FULL); `always` rows are not (see the header).
   */
  append(item: JournaledRow, limit: 'bounded' | 'always'): Promise<void> {
    if (this.#closed) return Promise.reject(journalFailed(this.#options.dir, new Error('journal closed')));
    const line = encodeJournalLine(item);
    if (
      limit === 'bounded' &&
      (this.#live.rows + 1 > this.#options.maxRows || this.#live.bytes + line.length > this.#options.maxBytes)
    ) {
      this.#counters.refusedFull += 1;
      return Promise.reject(
        new TradingGatewayError(
          'AUDIT_BACKLOG_FULL',
          'the order audit journal is full (its rows cannot reach the store); nothing was sent, retry later',
          { retryable: true },
        ),
      );
    }
    this.#live.rows += 1;
    this.#live.bytes += line.length;
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ item, seq: this.#nextSeq++, line, resolve, reject });
      // setImmediate, not a microtask: rows appended in the same turn of the loop join this round.
      this.#writing ??= new Promise<void>((r) => setImmediate(r)).then(() => this.#writeRounds());
    });
  }

  /** The rows of this correlationId not yet drained, oldest first. */
  pendingOf(correlationId: string): readonly JournaledRow[] {
    return (this.#byCorrelation.get(correlationId) ?? []).map((e) => e.item);
  }

  /** The rows read back at open and still pending (their owners and ids must be known at start). */
  recoveredRows(): JournaledRow[] {
    return this.#pending.filter((e) => e.recovered).map((e) => e.item);
  }

  /** Up to `max` of the oldest synced rows not yet drained (the drain's next batch). */
  oldest(max: number): readonly JournalEntry[] {
    return this.#pending.slice(0, max);
  }

  /** The `count` oldest rows are in the store: their room is given back. */
  settle(count: number): void {
    const done = this.#pending.splice(0, count);
    for (const entry of done) {
      this.#live.rows -= 1;
      this.#live.bytes -= entry.bytes;
      if (entry.file) entry.file.undrained -= 1;
      const cid = entry.item.row.correlationId;
      const same = this.#byCorrelation.get(cid);
      if (same?.[0] === entry) same.shift();
      if (same?.length === 0) this.#byCorrelation.delete(cid);
    }
    this.#wakeDrainWaiters();
    void this.#dropDrainedFiles();
  }

  /** Resolves when every row appended before the call is drained (or failed), or after `timeoutMs`. */
  whenDrained(timeoutMs: number): Promise<void> {
    const seq = this.#nextSeq - 1;
    if (this.#lowestOutstanding() > seq) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref?.();
      this.#drainWaiters.push({
        seq,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  stats(): AuditJournalStats {
    return {
      ...this.#counters,
      rows: this.#live.rows,
      bytes: this.#live.bytes,
      oldestAtMs: this.#pending[0]?.item.atMs ?? this.#round[0]?.item.atMs ?? this.#waiting[0]?.item.atMs,
      files: this.#files.length,
    };
  }

  /** Waits for the running round, then closes the file (pending rows stay for the next open). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writing;
    await this.#active?.handle.close().catch(() => undefined);
    this.#active = undefined;
  }

  async #writeRounds(): Promise<void> {
    while (this.#waiting.length > 0) {
      const round = this.#waiting;
      this.#waiting = [];
      this.#round = round;
      try {
        const file = await this.#writeRound(round);
        for (const a of round) {
          file.undrained += 1;
          this.#addPending({ item: a.item, seq: a.seq, recovered: false, bytes: a.line.length, file });
        }
        for (const a of round) a.resolve();
        for (const listener of this.#listeners) listener();
      } catch (error) {
        this.#counters.failedWrites += round.length;
        const failed = journalFailed(this.#options.dir, error);
        for (const a of round) {
          this.#live.rows -= 1;
          this.#live.bytes -= a.line.length;
          a.reject(failed);
        }
        const broken = this.#active;
        this.#active = undefined;
        await broken?.handle.close().catch(() => undefined);
      }
      this.#round = [];
      this.#wakeDrainWaiters();
    }
    this.#writing = undefined;
  }

  async #writeRound(round: readonly Appending[]): Promise<JournalFile> {
    if (!this.#active || this.#active.file.size >= this.#options.fileBytes) await this.#startFile();
    const active = this.#active;
    if (!active) throw new Error('no journal file open');
    const lines = round.map((a) => a.line);
    const total = lines.reduce((n, b) => n + b.length, 0);
    let written = (await active.handle.writev(lines)).bytesWritten;
    active.file.size += written;
    // A disk that fills mid-round answers with a short write first; writing the rest is what
    // returns the error that names it (ENOSPC).
    if (written < total) {
      const rest = Buffer.concat(lines).subarray(written);
      while (written < total) {
        const { bytesWritten } = await active.handle.write(rest, written - (total - rest.length));
        if (bytesWritten === 0) throw new Error(`short write (${written} of ${total} bytes)`);
        written += bytesWritten;
        active.file.size += bytesWritten;
      }
    }
    await active.handle.datasync();
    return active.file;
  }

  async #startFile(): Promise<void> {
    const previous = this.#active;
    this.#active = undefined;
    await previous?.handle.close();
    const path = join(this.#options.dir, fileName(this.#nextFile++));
    const handle = await open(path, 'wx');
    try {
      // The new name must survive a power cut too, or its synced rows vanish with it.
      const dir = await open(this.#options.dir, 'r');
      await dir.sync().finally(() => dir.close());
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    const file: JournalFile = { path, size: 0, undrained: 0 };
    this.#files.push(file);
    this.#active = { file, handle };
    void this.#dropDrainedFiles();
  }

  #addPending(entry: JournalEntry): void {
    this.#pending.push(entry);
    const cid = entry.item.row.correlationId;
    const same = this.#byCorrelation.get(cid);
    if (same) same.push(entry);
    else this.#byCorrelation.set(cid, [entry]);
  }

  /** The lowest sequence number neither drained nor failed (Infinity when none). */
  #lowestOutstanding(): number {
    return Math.min(
      this.#pending[0]?.seq ?? Number.POSITIVE_INFINITY,
      this.#round[0]?.seq ?? Number.POSITIVE_INFINITY,
      this.#waiting[0]?.seq ?? Number.POSITIVE_INFINITY,
    );
  }

  #wakeDrainWaiters(): void {
    const lowest = this.#lowestOutstanding();
    for (let i = this.#drainWaiters.length - 1; i >= 0; i--) {
      const waiter = this.#drainWaiters[i];
      if (waiter && waiter.seq < lowest) {
        this.#drainWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  async #dropDrainedFiles(): Promise<void> {
    const done = this.#files.filter((f) => f !== this.#active?.file && f.undrained === 0);
    for (const f of done) this.#files.splice(this.#files.indexOf(f), 1);
    await Promise.all(done.map((f) => unlink(f.path).catch(() => undefined)));
  }
}
