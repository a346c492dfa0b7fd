/**
 * The key commands' local store for a service (key-command.ts `openLocal`): the service's store
 * with its migrations applied (a fresh data directory has no key table yet), its key table read
 * without a cache (a command sees what it just wrote), and the store closed with it.
 */
import { createStore, runMigrations, type StoreConfig } from '@feedpipe/store';
import { ApiKeyStore } from './api-keys.js';
import type { KeyManager } from './key-command.js';

export async function openLocalKeyStore<S extends string>(
  config: StoreConfig,
  table: string,
  scopes: readonly S[],
): Promise<{ keys: KeyManager<S>; close(): Promise<void> }> {
  const store = createStore(config);
  try {
    await runMigrations(store.internal);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  const keys = new ApiKeyStore<S>(store.internal, { table, scopes, cacheMs: 0 });
  return { keys, close: () => store.close() };
}
