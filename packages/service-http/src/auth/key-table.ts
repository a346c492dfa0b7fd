/**
 * The whole key table of a service, held in memory and re-read in the background, so that
 * authenticating a request never becomes a store query. Keys are few (people and programs, not
 * requests), so the table fits; an id that is not in it is unknown, answered from memory. Before
 * this, every unseen key id cost a lookup on the store's internal lane, the lane the sink's inserts,
 * the audit and /readyz share: a flood of random keys (~300/s) stalled the sink for a minute.
 *
 * Reads of the store happen only here, and are bounded whatever the callers do:
 * - one background read every `refreshMs`, never two at once (the next is scheduled when one ends);
 * - on demand only when there is no usable table (first use, or the last read is older than
 *   `maxStaleMs`), shared by every waiting caller and at most one per `retryMs` after a failure:
 *   while the store is unreachable, callers are refused (STORE_UNAVAILABLE) without a query each.
 *
 * The table read is capped at `maxKeys` rows; a larger table is refused (KEY_TABLE_TOO_LARGE)
 * rather than silently cut, because a cut table would refuse valid keys at random.
 */
import type { StoreLane } from '@feedpipe/store';
import { HttpError } from '../http-error.js';

/** One row of a key table (packages/store/migrations/004_api_tables.sql), as this process holds it. */
export interface StoredKey {
  keyId: string;
  name: string;
  /** As stored: the key store filters them to the service's scopes. */
  scopes: string[];
  createdAt: string;
  revoked: boolean;
  salt: string;
  hash: string;
}

export interface KeyTableOptions {
  /** `database.table`, already checked by the caller. */
  table: string;
  /** Background re-read interval, ms (>= 100). */
  refreshMs: number;
  /** How old the last good read may be and still answer; older: refused with 503. */
  maxStaleMs: number;
  /** Least time between two on-demand reads after a failed one, ms. */
  retryMs: number;
  /** At most this many rows are read. */
  maxKeys: number;
  now: () => number;
}

interface Snapshot {
  keys: Map<string, StoredKey>;
  /** When the read that produced it started (a row written later may be missing from it). */
  readStartedAt: number;
}

/** A row of the key table as KEY_COLUMNS_SQL selects it. */
export interface KeyRow {
  key_id: string;
  name: string;
  scopes: string[];
  salt: string;
  hash: string;
  created_at: string;
  revoked: number | string;
}

/** The columns every read of the key table selects (the whole table here, one key in api-keys.ts). */
export const KEY_COLUMNS_SQL =
  'key_id, name, scopes, salt, hash, toString(created_at) AS created_at, revoked';

/** A row as the key it stores. */
export function storedKeyOf(r: KeyRow): StoredKey {
  return {
    keyId: r.key_id,
    name: r.name,
    scopes: r.scopes,
    createdAt: r.created_at,
    revoked: Number(r.revoked) === 1,
    salt: r.salt,
    hash: r.hash,
  };
}

export class KeyTable {
  readonly #lane: StoreLane;
  readonly #options: KeyTableOptions;
  #snapshot: Snapshot | undefined;
  #loading: Promise<Snapshot> | undefined;
  #lastFailureAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /**
   * Rows this process wrote (created, revoked) with when the write finished: a read that started
   * before a write may not hold it, so such rows are laid over that read's result. Emptied as reads
   * that saw them land, so it holds only the writes of the last refresh interval or so.
   */
  readonly #written = new Map<string, { key: StoredKey; at: number }>();
  /** Reads of the store this table made (background and on demand): what tests and metrics count. */
  #reads = 0;

  constructor(lane: StoreLane, options: KeyTableOptions) {
    this.#lane = lane;
    this.#options = options;
  }

  get reads(): number {
    return this.#reads;
  }

  /** The key with this id, or undefined; rejects with STORE_UNAVAILABLE when no usable table exists. */
  async get(keyId: string): Promise<StoredKey | undefined> {
    const snapshot = await this.#usable();
    return snapshot.keys.get(keyId);
  }

  /** Records a row this process has just written, so it holds here before the next read. */
  wrote(key: StoredKey): void {
    this.#written.set(key.keyId, { key, at: this.#options.now() });
    this.#snapshot?.keys.set(key.keyId, key);
  }

  /** Stops the background reads (idempotent). */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #usable(): Promise<Snapshot> {
    const now = this.#options.now();
    const current = this.#snapshot;
    if (current && now - current.readStartedAt <= this.#options.maxStaleMs) return current;
    if (this.#loading) return this.#loading;
    if (now - this.#lastFailureAt < this.#options.retryMs) {
      throw new HttpError('STORE_UNAVAILABLE', 'API keys cannot be read right now', {
        retryable: true,
        retryAfterSec: Math.max(1, Math.ceil(this.#options.retryMs / 1000)),
      });
    }
    return this.#refresh();
  }

  /** One read of the whole table; callers that arrive while it runs share it. */
  #refresh(): Promise<Snapshot> {
    if (this.#loading) return this.#loading;
    const startedAt = this.#options.now();
    this.#reads += 1;
    const loading = this.#read()
      .then((keys) => this.#install(keys, startedAt))
      .catch((error: unknown) => {
        this.#lastFailureAt = this.#options.now();
        throw new HttpError('STORE_UNAVAILABLE', 'API keys cannot be read right now', {
          cause: error,
          retryable: true,
          retryAfterSec: Math.max(1, Math.ceil(this.#options.retryMs / 1000)),
        });
      })
      .finally(() => {
        this.#loading = undefined;
        this.#schedule();
      });
    this.#loading = loading;
    return loading;
  }

  #install(keys: Map<string, StoredKey>, readStartedAt: number): Snapshot {
    for (const [keyId, written] of this.#written) {
      if (written.at >= readStartedAt) keys.set(keyId, written.key);
      else this.#written.delete(keyId);
    }
    const snapshot = { keys, readStartedAt };
    this.#snapshot = snapshot;
    return snapshot;
  }

  /** The next background read, `refreshMs` after this one ended; never more than one pending. */
  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A failed background read is reported to the next caller that needs a fresh table.
      this.#refresh().catch(() => undefined);
    }, this.#options.refreshMs);
    // Background upkeep must not keep a process alive on its own.
    this.#timer.unref();
  }

  async #read(): Promise<Map<string, StoredKey>> {
    const rows = await this.#lane.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS_SQL} FROM ${this.#options.table} FINAL LIMIT {limit:UInt32}`,
      { limit: this.#options.maxKeys + 1 },
    );
    if (rows.length > this.#options.maxKeys) {
      throw new HttpError(
        'CONFIG_INVALID',
        `KEY_TABLE_TOO_LARGE: ${this.#options.table} holds more than ${this.#options.maxKeys} keys; revoke and remove unused keys`,
      );
    }
    const keys = new Map<string, StoredKey>();
    for (const r of rows) keys.set(r.key_id, storedKeyOf(r));
    return keys;
  }
}
