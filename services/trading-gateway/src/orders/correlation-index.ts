/**
 * Which correlation ids the audit trail holds any row of, kept in memory so that a placement with
 * a new id (nearly every placement) is known to have no history without a statement on the store.
 * Under `npm start` each statement crosses to npm start's process and waits on the store's pipeline
 * lane beside the sink's inserts (0.3-1.5 s each on a loaded host); the idempotency read was one
 * of the statements on every order's answer path.
 *
 * Only the answer "no row at all" is given from memory; an id with rows is still read from the
 * store (a retry or a conflict needs that key's newest row and the other keys' claims), so what
 * idempotency and per-key scoping guarantee is unchanged. For that answer to be exact the set must
 * hold every id in the table: it is read whole once (the first time it is asked), and every id this
 * process writes is added before its row is inserted, whatever the outcome of the insert (an id
 * noted without a row costs one needless read, never a wrong answer). Rows written by another
 * process after the read would be missed: the gateway is the only writer of its account's audit
 * trail (one gateway per account, docs/operations.md).
 *
 * Bounded: past `maxIds` ids the set is dropped and every question goes to the store, as before
 * the index existed; a failed read leaves the index unready and the next question tries again.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';

/** ~100 bytes an id in a Set: 500,000 ids hold ~50 MB at most. */
export const DEFAULT_MAX_CORRELATION_IDS = 500_000;

type IndexState = 'unread' | 'reading' | 'complete' | 'too-large';

export class CorrelationIndex {
  readonly #store: StoreLane;
  readonly #maxIds: number;
  readonly #ids = new Set<string>();
  #state: IndexState = 'unread';
  #reading: Promise<void> | undefined;

  constructor(store: StoreLane, maxIds: number = DEFAULT_MAX_CORRELATION_IDS) {
    this.#store = store;
    this.#maxIds = maxIds;
  }

  /** Whether the index answers from memory (false: every question goes to the store). */
  get complete(): boolean {
    return this.#state === 'complete';
  }

  /** An id about to be written to the audit trail (noted before the insert, see above). */
  note(correlationId: string): void {
    if (correlationId === '' || this.#state === 'too-large') return;
    this.#ids.add(correlationId);
    if (this.#ids.size > this.#maxIds) this.#giveUp();
  }

  /**
   * False only when the audit trail certainly holds no row of this id; true when it may (then the
   * store must be read). The first question reads the table's ids.
   */
  async mayHaveRows(correlationId: string): Promise<boolean> {
    if (this.#state === 'unread' || this.#state === 'reading') {
      this.#reading ??= this.#read();
      try {
        await this.#reading;
      } catch {
        return true;
      }
    }
    return this.#state !== 'complete' || this.#ids.has(correlationId);
  }

  async #read(): Promise<void> {
    this.#state = 'reading';
    let rows: { correlation_id: string }[];
    try {
      rows = await this.#store.rows<{ correlation_id: string }>(
        `SELECT DISTINCT correlation_id FROM ${SERVICE_TABLES.orderAudit.name}
         WHERE correlation_id != '' LIMIT {limit:UInt32}`,
        { limit: this.#maxIds + 1 },
      );
    } catch (error) {
      this.#state = 'unread';
      this.#reading = undefined;
      throw error;
    }
    // note() may have given up while the read ran (TypeScript cannot see that across the await).
    if (this.#gaveUp()) return;
    // A union: ids noted while the read ran are kept whether or not the read saw their rows.
    for (const r of rows) this.#ids.add(r.correlation_id);
    if (this.#ids.size > this.#maxIds) this.#giveUp();
    else this.#state = 'complete';
  }

  #gaveUp(): boolean {
    return this.#state === 'too-large';
  }

  #giveUp(): void {
    this.#state = 'too-large';
    this.#ids.clear();
  }
}
