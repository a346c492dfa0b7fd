/**
 * ClickHouse for `npm start`: a server by URL (CLICKHOUSE_URL), or embedded chDB under the data
 * directory; one store for every part, since chDB binds one data directory per process.
 */
import { join } from 'node:path';
import { type StoreEnv, storeConfigFromEnv } from '@feedpipe/query-api';
import { applyRetention, createStore, retentionFromEnv, runMigrations, type Store } from '@feedpipe/store';
import { keepSecrets } from './log.js';
import { onExit } from './stop-order.js';

export async function openStore(dataDir: string): Promise<{ store: Store; env: StoreEnv }> {
  const env = storeConfigFromEnv(process.env, join(dataDir, 'chdb'));
  const retention = retentionFromEnv(process.env);
  keepSecrets(...env.secrets);
  const store = createStore(env.config);
  onExit('store', () => store.close());
  await runMigrations(store.internal);
  // One process owns the store here, so it sets the TTLs of STORE_TTL_*_DAYS (packages/store).
  await applyRetention(store.internal, retention);
  return { store, env };
}
