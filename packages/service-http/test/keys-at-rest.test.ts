/**
 * No file the embedded engine can read holds a key (#36 item 5). The engine's jail leaves it its
 * data directory (packages/store/src/embedded/engine-process/jail.ts), where `file(path)` could
 * still reach the key table's part files; they hold each key's id, salt and salted hash, never the
 * secret. Read here byte for byte, every file of the directory, after the keys were created and
 * the table merged.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore, parseKey } from '../src/index.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('API keys at rest in the embedded store', () => {
  const dataDir = tempDir('keys-at-rest');
  let store: Store;
  const keys: Array<{ keyId: string; secret: string }> = [];

  beforeAll(async () => {
    store = createStore({ dataDir });
    await runMigrations(store.internal);
    const table = new ApiKeyStore<'read'>(store.internal, {
      table: 'market.api_keys',
      scopes: ['read'],
      cacheMs: 60_000,
    });
    for (let i = 0; i < 5; i++) {
      const created = await table.create(`key ${i}`, ['read']);
      const parsed = parseKey(created.key);
      if (parsed === undefined) throw new Error('a created key does not parse');
      keys.push(parsed);
    }
    // Parts merged and written out: what a later read of the directory would find.
    await store.internal.command('OPTIMIZE TABLE market.api_keys FINAL');
  });
  afterAll(async () => {
    await store.close();
  });

  it('holds every key’s id (the control: the key table’s files are readable here) and no secret', () => {
    const contents = filesUnder(dataDir).map((path) => readFileSync(path).toString('latin1'));
    for (const { keyId, secret } of keys) {
      expect(
        contents.some((text) => text.includes(keyId)),
        keyId,
      ).toBe(true);
      expect(contents.filter((text) => text.includes(secret))).toEqual([]);
    }
  });
});
