/**
 * API keys in market.api_keys (hashed, see key-format.ts), with a short-lived in-memory cache so a
 * request costs one hash, not one ClickHouse query. Revocation reaches every instance within the
 * cache time.
 */
import type { ClickHouseClient } from '@feedpipe/store';
import { QueryApiError } from '../errors.js';
import { newKeyMaterial, parseKey, SCOPES, type Scope, secretMatches } from './key-format.js';

export interface ApiKeyInfo {
  keyId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revoked: boolean;
}

interface StoredKey extends ApiKeyInfo {
  salt: string;
  hash: string;
}

interface CacheEntry {
  key: StoredKey | undefined;
  until: number;
}

/** Unknown key ids are remembered too (bounded), so a flood of bad keys does not become queries. */
const MAX_CACHED_KEYS = 10_000;

export class ApiKeyStore {
  readonly #client: ClickHouseClient;
  readonly #cacheMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();

  constructor(client: ClickHouseClient, cacheMs: number, now: () => number = Date.now) {
    this.#client = client;
    this.#cacheMs = cacheMs;
    this.#now = now;
  }

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(name: string, scopes: readonly Scope[]): Promise<ApiKeyInfo & { key: string }> {
    if (name.length === 0 || name.length > 200) {
      throw new QueryApiError('BAD_REQUEST', 'key name must be 1 to 200 characters', { field: 'name' });
    }
    for (const scope of scopes) {
      if (!SCOPES.includes(scope)) {
        throw new QueryApiError('BAD_REQUEST', `unknown scope "${scope}" (allowed: ${SCOPES.join(', ')})`, {
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

  async revoke(keyId: string): Promise<boolean> {
    const stored = await this.#read(keyId);
    if (!stored) return false;
    await this.#write({ ...stored, revoked: true });
    this.#cache.delete(keyId);
    return true;
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await (
      await this.#client.query({
        query: `SELECT key_id, name, scopes, toString(created_at) AS created_at, revoked
                FROM market.api_keys FINAL ORDER BY created_at`,
        format: 'JSONEachRow',
      })
    ).json<{ key_id: string; name: string; scopes: string[]; created_at: string; revoked: number }>();
    return rows.map((r) => ({
      keyId: r.key_id,
      name: r.name,
      scopes: r.scopes.filter((s): s is Scope => SCOPES.includes(s as Scope)),
      createdAt: r.created_at,
      revoked: Number(r.revoked) === 1,
    }));
  }

  /** The key's info if the presented key is valid and not revoked; undefined otherwise. */
  async verify(presented: string): Promise<ApiKeyInfo | undefined> {
    const parsed = parseKey(presented);
    if (!parsed) return undefined;
    const now = this.#now();
    let entry = this.#cache.get(parsed.keyId);
    if (!entry || entry.until <= now) {
      entry = { key: await this.#read(parsed.keyId), until: now + this.#cacheMs };
      if (this.#cache.size >= MAX_CACHED_KEYS) this.#cache.clear();
      this.#cache.set(parsed.keyId, entry);
    }
    const key = entry.key;
    if (!key || key.revoked || !secretMatches(key.salt, key.hash, parsed.secret)) return undefined;
    return { keyId: key.keyId, name: key.name, scopes: key.scopes, createdAt: key.createdAt, revoked: false };
  }

  async #read(keyId: string): Promise<StoredKey | undefined> {
    const rows = await (
      await this.#client.query({
        query: `SELECT key_id, name, scopes, salt, hash, toString(created_at) AS created_at, revoked
                FROM market.api_keys FINAL WHERE key_id = {keyId:String}`,
        query_params: { keyId },
        format: 'JSONEachRow',
      })
    ).json<{
      key_id: string;
      name: string;
      scopes: string[];
      salt: string;
      hash: string;
      created_at: string;
      revoked: number;
    }>();
    const r = rows[0];
    if (!r) return undefined;
    return {
      keyId: r.key_id,
      name: r.name,
      scopes: r.scopes.filter((s): s is Scope => SCOPES.includes(s as Scope)),
      createdAt: r.created_at,
      revoked: Number(r.revoked) === 1,
      salt: r.salt,
      hash: r.hash,
    };
  }

  async #write(key: StoredKey): Promise<void> {
    await this.#client.insert({
      table: 'market.api_keys',
      columns: ['key_id', 'name', 'scopes', 'salt', 'hash', 'created_at', 'revoked', 'version'],
      values: [
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
      format: 'JSONCompactEachRow',
    });
  }
}

let tiebreak = 0;
function nextTiebreak(): number {
  tiebreak = (tiebreak + 1) % 1000;
  return tiebreak;
}
