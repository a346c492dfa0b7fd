/**
 * ClickHouse for `npm start`: a server by URL (CLICKHOUSE_URL), or embedded chDB under the data
 * directory; one store for every part, since chDB binds one data directory per process.
 */
import { join } from 'node:path';
import { type StoreEnv, storeConfigFromEnv } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { keepSecrets } from './log.js';
import { onExit } from './stop-order.js';

export async function openStore(dataDir: string): Promise<{ store: Store; env: StoreEnv }> {
  const env = storeConfigFromEnv(process.env, join(dataDir, 'chdb'));
  keepSecrets(...env.secrets);
  const store = createStore(env.config);
  onExit('store', () => store.close());
  await runMigrations(store.internal);
  return { store, env };
}
