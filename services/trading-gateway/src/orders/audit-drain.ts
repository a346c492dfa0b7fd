/**
 * Moves the audit journal's rows into market.order_audit behind the answers: one insert per batch
 * of up to `batchRows` rows, oldest first, so the store sees a few large inserts instead of two
 * small ones per order. A failed insert is retried after a backoff with the same rows (they stay in
 * the journal, which bounds how many can wait): while the store is away orders go on being
 * answered, until the journal is full.
 *
 * Exactly once: rows recovered from an earlier process's files are first looked up in the store by
 * their identity (request id, phase, order id: a sliced order has one outcome row per order id)
 * and only the missing ones are inserted, since a SIGKILL can fall between an insert and its
 * settle. A row this process journaled is inserted once: it is settled right after its insert.
 * Left open: an insert the killed process had already handed to a store in another process (npm
 * start's, a ClickHouse server) that completes only after the restart's lookup (docs/operations.md).
 */
import { Backoff, type BackoffOptions, sleep } from '@feedpipe/retry';
import type { AuditJournal, JournaledRow } from './audit-journal.js';
import type { AuditRow } from './audit-log.js';

/** Where drained rows go (the audit log, over its store lane). */
export interface AuditTarget {
  insert(rows: readonly JournaledRow[]): Promise<void>;
  /** The identities (auditIdentity) of these rows that the store already holds. */
  storedIdentities(rows: readonly JournaledRow[]): Promise<Set<string>>;
}

export interface AuditDrainStats {
  drainedRows: number;
  /** Recovered rows found in the store already, so not inserted again. */
  skippedStored: number;
  failures: number;
}

export function auditIdentity(row: Pick<AuditRow, 'requestId' | 'phase' | 'orderId'>): string {
  return `${row.requestId}\u0000${row.phase}\u0000${row.orderId ?? ''}`;
}

export class AuditDrain {
  readonly #journal: AuditJournal;
  readonly #target: AuditTarget;
  readonly #batchRows: number;
  readonly #backoff: Backoff;
  readonly #stop = new AbortController();
  readonly #stats: AuditDrainStats = { drainedRows: 0, skippedStored: 0, failures: 0 };
  #loop: Promise<void> | undefined;
  #busy = false;

  constructor(
    journal: AuditJournal,
    target: AuditTarget,
    options: { batchRows: number; backoff?: BackoffOptions },
  ) {
    this.#journal = journal;
    this.#target = target;
    this.#batchRows = options.batchRows;
    this.#backoff = new Backoff({ initialMs: 100, maxMs: 5_000, ...options.backoff });
    journal.onPending(() => this.#kick());
  }

  stats(): AuditDrainStats {
    return { ...this.#stats };
  }

  /** Stops after the batch in flight; what is left stays in the journal for the next start. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  #kick(): void {
    if (this.#busy || this.#stop.signal.aborted) return;
    this.#busy = true;
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    for (;;) {
      const batch = this.#journal.oldest(this.#batchRows);
      // Cleared in the same turn as the emptiness check: a row synced after it kicks a new run.
      if (batch.length === 0 || this.#stop.signal.aborted) {
        this.#busy = false;
        return;
      }
      try {
        await this.#store(
          batch.filter((e) => e.recovered).map((e) => e.item),
          batch.map((e) => e.item),
        );
        this.#journal.settle(batch.length);
        this.#stats.drainedRows += batch.length;
        this.#backoff.reset();
      } catch {
        this.#stats.failures += 1;
        await sleep(this.#backoff.next(), this.#stop.signal);
      }
    }
  }

  async #store(recovered: readonly JournaledRow[], rows: readonly JournaledRow[]): Promise<void> {
    let insert = rows;
    if (recovered.length > 0) {
      const stored = await this.#target.storedIdentities(recovered);
      insert = rows.filter((r) => !stored.has(auditIdentity(r.row)));
      this.#stats.skippedStored += rows.length - insert.length;
    }
    if (insert.length > 0) await this.#target.insert(insert);
  }
}
