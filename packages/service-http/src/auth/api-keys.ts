/**
 * API keys in a service's own key table (hashed, see key-format.ts; the query API keeps its keys in
 * market.api_keys, the trading gateway in market.gateway_api_keys, so a key of one is nothing to
 * the other), with a short-lived in-memory cache so a
 * request costs one hash, not one ClickHouse query. A revocation through this store (the admin
 * routes, or the CLI in its own process) takes effect in this process at once: the key id joins a
 * revoked set that every verify() checks before the cache, so neither a cached entry nor a lookup
 * that was in flight while the revocation was written can let the key through again. Other API
 * instances reading the same ClickHouse see it within their cache time (`keyCacheMs`).
 */
import type { StoreLane } from '@feedpipe/store';
import { HttpError } from '../http-error.js';
import { newKeyMaterial, parseKey, secretMatches } from './key-format.js';

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
   * How long a looked-up key is trusted before it is read again. A revocation through this store
   * takes effect at once; other instances see it within this time. 0: read on every request.
   */
  cacheMs: number;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
}

interface StoredKey extends ApiKeyInfo<string> {
  salt: string;
  hash: string;
}

interface CacheEntry {
  key: StoredKey | undefined;
  until: number;
}

/** Unknown key ids are remembered too (bounded), so a flood of bad keys does not become queries. */
const MAX_CACHED_KEYS = 10_000;
/**
 * Key ids revoked by this process. Once a key's revoked row is written, a fresh read says so; the
 * set only has to outlive the cache time and the lookups in flight, so the oldest ids may go.
 */
const MAX_REVOKED_HERE = 100_000;

export type RevokedListener = (keyId: string) => void;

const TABLE_NAME = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

export class ApiKeyStore<S extends string = string> {
  readonly #store: StoreLane;
  readonly #table: string;
  readonly #scopes: readonly S[];
  readonly #cacheMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #revokedHere = new Set<string>();
  readonly #revokedListeners = new Set<RevokedListener>();
  /** Key id -> epoch ms of its last accepted request here (bounded like the cache). */
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
    this.#cacheMs = options.cacheMs;
    this.#now = options.now ?? Date.now;
  }

  /** The scopes a key of this store may hold. */
  get scopes(): readonly S[] {
    return this.#scopes;
  }

  /** The table the keys are kept in. */
  get table(): string {
    return this.#table;
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
    await this.#write({
      keyId: material.keyId,
      name,
      scopes: [...new Set(scopes)],
      createdAt,
      revoked: false,
      salt: material.salt,
      hash: material.hash,
    });
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
    await this.#write({ ...stored, revoked: true });
    this.#cache.delete(keyId);
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
    this.#cache.delete(keyId);
  }

  #isScope(value: string): value is S {
    return (this.#scopes as readonly string[]).includes(value);
  }

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
    const parsed = parseKey(presented);
    if (!parsed || this.#revokedHere.has(parsed.keyId)) return undefined;
    const now = this.#now();
    let entry = this.#cache.get(parsed.keyId);
    if (!entry || entry.until <= now) {
      entry = { key: await this.#read(parsed.keyId), until: now + this.#cacheMs };
      if (this.#cache.size >= MAX_CACHED_KEYS) this.#cache.clear();
      this.#cache.set(parsed.keyId, entry);
    }
    const key = entry.key;
    // Checked again after the await: a revocation may have landed while the row was being read.
    if (
      !key ||
      key.revoked ||
      this.#revokedHere.has(key.keyId) ||
      !secretMatches(key.salt, key.hash, parsed.secret)
    )
      return undefined;
    if (this.#lastUsed.size >= MAX_CACHED_KEYS && !this.#lastUsed.has(key.keyId)) this.#lastUsed.clear();
    this.#lastUsed.set(key.keyId, now);
    return {
      keyId: key.keyId,
      name: key.name,
      scopes: key.scopes.filter((s) => this.#isScope(s)),
      createdAt: key.createdAt,
      revoked: false,
    };
  }

  async #read(keyId: string): Promise<StoredKey | undefined> {
    const rows = await this.#store.rows<{
      key_id: string;
      name: string;
      scopes: string[];
      salt: string;
      hash: string;
      created_at: string;
      revoked: number;
    }>(
      `SELECT key_id, name, scopes, salt, hash, toString(created_at) AS created_at, revoked
       FROM ${this.#table} FINAL WHERE key_id = {keyId:String}`,
      { keyId },
    );
    const r = rows[0];
    if (!r) return undefined;
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
