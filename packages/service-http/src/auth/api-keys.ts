/**
 * API keys in a service's own key table (hashed, see key-format.ts; the query API keeps its keys in
 * market.api_keys, the trading gateway in market.gateway_api_keys, so a key of one is nothing to
 * the other). Requests are checked against the whole table held in memory (key-table.ts), re-read
 * in the background every `cacheMs`: a request costs one hash and never a store query, whatever key
 * it presents.
 *
 * Revocation: through this store (the admin routes, or the CLI in its own process) it takes effect
 * in this process at once: the key id joins a revoked set that every check reads first, so neither
 * the table held nor a read that was in flight while the revocation was written can let the key
 * through again. Other instances reading the same ClickHouse see it with their next read, within
 * `cacheMs` plus one read; if they cannot read the table, they answer from their last read for at
 * most `maxStaleMs`, then refuse every key (503) until a read succeeds. A key created by another
 * process works here within the same bound.
 */
import type { StoreLane } from '@feedpipe/store';
import { HttpError } from '../http-error.js';
import { newKeyMaterial, parseKey, secretMatches } from './key-format.js';
import { KEY_COLUMNS_SQL, type KeyRow, KeyTable, type StoredKey, storedKeyOf } from './key-table.js';

export interface ApiKeyInfo<S extends string = string> {
  keyId: string;
  name: string;
  scopes: S[];
  createdAt: string;
  revoked: boolean;
  /**
   * When this process last accepted the key (ISO 8601), in list() answers only; absent when it has
   * not since it started. Kept in memory: a write per request would cost more than the answer.
   */
  lastUsedAt?: string;
}

export interface ApiKeyStoreOptions<S extends string> {
  /**
   * `database.table` of the keys, with the columns of packages/store/migrations/004_api_tables.sql
   * (market.api_keys). Interpolated into SQL, so only `[a-z_][a-z0-9_]*.[a-z_][a-z0-9_]*` is taken.
   */
  table: string;
  /** The scopes a key of this service may hold; stored scopes outside the list are ignored. */
  scopes: readonly S[];
  /**
   * How often the whole key table is re-read in the background, ms: the bound on how late another
   * instance's revocation (or new key) takes effect here. Below 1,000 is taken as 1,000: a read
   * per request is what this store exists to avoid. A revocation through this store holds at once.
   */
  cacheMs: number;
  /**
   * How long the last good read answers while the table cannot be read, ms; after it, every key is
   * refused (503) until a read succeeds. Default: 6 times the refresh interval, at least 30,000.
   */
  maxStaleMs?: number;
  /** At most this many keys in the table (a larger one is refused, never cut). Default 100,000. */
  maxKeys?: number;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
}

/** Why a presented key was refused, or the key it is: what the auth hook's throttles act on. */
export type KeyCheck<S extends string> =
  | { outcome: 'valid'; key: ApiKeyInfo<S> }
  /** Not of the key's shape at all (no key id can be read from it). */
  | { outcome: 'malformed' }
  /** No such key id in the table, or revoked. */
  | { outcome: 'unknown' | 'revoked'; keyId: string }
  /** The key id exists and is valid, the secret is not its secret. */
  | { outcome: 'wrong-secret'; keyId: string };

/** When this process last accepted a key: bounded like everything kept per key. */
const MAX_LAST_USED = 10_000;
/**
 * Key ids revoked by this process. Once a key's revoked row is written, a fresh read says so; the
 * set only has to outlive the refresh interval and the reads in flight, so the oldest ids may go.
 */
const MAX_REVOKED_HERE = 100_000;
const MIN_REFRESH_MS = 1_000;
/** After a failed read, on-demand reads wait this long: a flood must not become a retry storm. */
const RETRY_MS = 1_000;

export type RevokedListener = (keyId: string) => void;

const TABLE_NAME = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

export class ApiKeyStore<S extends string = string> {
  readonly #store: StoreLane;
  readonly #table: string;
  readonly #scopes: readonly S[];
  readonly #now: () => number;
  readonly #keys: KeyTable;
  readonly #revokedHere = new Set<string>();
  readonly #revokedListeners = new Set<RevokedListener>();
  /** Key id -> epoch ms of its last accepted request here (bounded). */
  readonly #lastUsed = new Map<string, number>();

  constructor(store: StoreLane, options: ApiKeyStoreOptions<S>) {
    if (!TABLE_NAME.test(options.table)) {
      throw new HttpError('CONFIG_INVALID', `API key table "${options.table}" must be database.table`);
    }
    if (options.scopes.length === 0)
      throw new HttpError('CONFIG_INVALID', 'API key scopes must not be empty');
    this.#store = store;
    this.#table = options.table;
    this.#scopes = [...options.scopes];
    this.#now = options.now ?? Date.now;
    const refreshMs = Math.max(MIN_REFRESH_MS, options.cacheMs);
    this.#keys = new KeyTable(store, {
      table: options.table,
      refreshMs,
      maxStaleMs: options.maxStaleMs ?? Math.max(30_000, 6 * refreshMs),
      retryMs: RETRY_MS,
      maxKeys: options.maxKeys ?? 100_000,
      now: this.#now,
    });
  }

  /** The scopes a key of this store may hold. */
  get scopes(): readonly S[] {
    return this.#scopes;
  }

  /** The table the keys are kept in. */
  get table(): string {
    return this.#table;
  }

  /** Reads of the whole key table so far (the only store reads that checking keys makes). */
  get tableReads(): number {
    return this.#keys.reads;
  }

  /** Stops the background re-reads of the key table (the service's stop()). */
  close(): void {
    this.#keys.close();
  }

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(name: string, scopes: readonly S[]): Promise<ApiKeyInfo<S> & { key: string }> {
    if (name.length === 0 || name.length > 200) {
      throw new HttpError('BAD_REQUEST', 'key name must be 1 to 200 characters', { field: 'name' });
    }
    for (const scope of scopes) {
      if (!this.#isScope(scope)) {
        throw new HttpError('BAD_REQUEST', `unknown scope "${scope}" (allowed: ${this.#scopes.join(', ')})`, {
          field: 'scopes',
        });
      }
    }
    const material = newKeyMaterial();
    const createdAt = new Date(this.#now()).toISOString();
    const stored: StoredKey = {
      keyId: material.keyId,
      name,
      scopes: [...new Set(scopes)],
      createdAt,
      revoked: false,
      salt: material.salt,
      hash: material.hash,
    };
    await this.#write(stored);
    // Works here at once, before the next read of the table.
    this.#keys.wrote(stored);
    return {
      keyId: material.keyId,
      name,
      scopes: [...new Set(scopes)],
      createdAt,
      revoked: false,
      key: material.key,
    };
  }

  /**
   * Revokes a key: false when there is no such key. The key stops working in this process before
   * the row is even written (and stays stopped if writing fails, as the caller is told to retry).
   */
  async revoke(keyId: string): Promise<boolean> {
    const stored = await this.#read(keyId);
    if (!stored) return false;
    this.#markRevoked(keyId);
    const revoked = { ...stored, revoked: true };
    await this.#write(revoked);
    this.#keys.wrote(revoked);
    for (const listener of this.#revokedListeners) listener(keyId);
    return true;
  }

  /** Called with the key id after each revocation through this store (to end the key's live streams). */
  onRevoked(listener: RevokedListener): () => void {
    this.#revokedListeners.add(listener);
    return () => this.#revokedListeners.delete(listener);
  }

  #markRevoked(keyId: string): void {
    if (this.#revokedHere.size >= MAX_REVOKED_HERE) {
      const oldest = this.#revokedHere.values().next().value;
      if (oldest !== undefined) this.#revokedHere.delete(oldest);
    }
    this.#revokedHere.add(keyId);
  }

  #isScope(value: string): value is S {
    return (this.#scopes as readonly string[]).includes(value);
  }

  /** Every key of the table, read fresh (admin only: this one is a store query). */
  async list(): Promise<ApiKeyInfo<S>[]> {
    const rows = await this.#store.rows<{
      key_id: string;
      name: string;
      scopes: string[];
      created_at: string;
      revoked: number;
    }>(
      `SELECT key_id, name, scopes, toString(created_at) AS created_at, revoked
       FROM ${this.#table} FINAL ORDER BY created_at`,
    );
    return rows.map((r) => {
      const used = this.#lastUsed.get(r.key_id);
      return {
        keyId: r.key_id,
        name: r.name,
        scopes: r.scopes.filter((s) => this.#isScope(s)),
        createdAt: r.created_at,
        revoked: Number(r.revoked) === 1,
        ...(used === undefined ? {} : { lastUsedAt: new Date(used).toISOString() }),
      };
    });
  }

  /** The key's info if the presented key is valid and not revoked; undefined otherwise. */
  async verify(presented: string): Promise<ApiKeyInfo<S> | undefined> {
    const checked = await this.check(presented);
    return checked.outcome === 'valid' ? checked.key : undefined;
  }

  /**
   * What the presented key is, from the table held in memory: never a store query of its own.
   * Rejects with STORE_UNAVAILABLE only while no usable table exists (see key-table.ts).
   */
  async check(presented: string): Promise<KeyCheck<S>> {
    const parsed = parseKey(presented);
    if (!parsed) return { outcome: 'malformed' };
    const { keyId } = parsed;
    if (this.#revokedHere.has(keyId)) return { outcome: 'revoked', keyId };
    const key = await this.#keys.get(keyId);
    if (!key) return { outcome: 'unknown', keyId };
    // Checked again after the await: a revocation may have landed while the table was being read.
    if (key.revoked || this.#revokedHere.has(keyId)) return { outcome: 'revoked', keyId };
    if (!secretMatches(key.salt, key.hash, parsed.secret)) return { outcome: 'wrong-secret', keyId };
    if (this.#lastUsed.size >= MAX_LAST_USED && !this.#lastUsed.has(keyId)) this.#lastUsed.clear();
    this.#lastUsed.set(keyId, this.#now());
    return {
      outcome: 'valid',
      key: {
        keyId,
        name: key.name,
        scopes: key.scopes.filter((s) => this.#isScope(s)),
        createdAt: key.createdAt,
        revoked: false,
      },
    };
  }

  /** One key's row, read fresh (revoke only: an admin route). */
  async #read(keyId: string): Promise<StoredKey | undefined> {
    const rows = await this.#store.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS_SQL} FROM ${this.#table} FINAL WHERE key_id = {keyId:String}`,
      { keyId },
    );
    const r = rows[0];
    return r === undefined ? undefined : storedKeyOf(r);
  }

  async #write(key: StoredKey): Promise<void> {
    await this.#store.insertRows(
      this.#table,
      ['key_id', 'name', 'scopes', 'salt', 'hash', 'created_at', 'revoked', 'version'],
      [
        [
          key.keyId,
          key.name,
          key.scopes,
          key.salt,
          key.hash,
          key.createdAt.replace('T', ' ').replace('Z', ''),
          key.revoked ? 1 : 0,
          // Versions must grow across instances: wall-clock microseconds plus a per-process tiebreak.
          String(BigInt(this.#now()) * 1000n + BigInt(nextTiebreak())),
        ],
      ],
    );
  }
}

let tiebreak = 0;
function nextTiebreak(): number {
  tiebreak = (tiebreak + 1) % 1000;
  return tiebreak;
}
