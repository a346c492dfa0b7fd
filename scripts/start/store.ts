/**
 * ClickHouse for `npm start`: a server by URL (CLICKHOUSE_URL), or embedded chDB under the data
 * directory; one store for every part, since chDB binds one data directory per process.
 */
import {
  applyRetention,
  chdbDirOf,
  createStore,
  retentionFromEnv,
  runMigrations,
  type Store,
  type StoreEnv,
  storeConfigFromEnv,
} from '@feedpipe/store';
import { keepSecrets } from './log.js';
import { onExit } from './stop-order.js';

/** The pipeline lane's engine sessions under npm start (the store's default is 1). */
export const NPM_START_INTERNAL_SESSIONS = 2;

export async function openStore(dataDir: string): Promise<{ store: Store; env: StoreEnv }> {
  const env = storeConfigFromEnv(process.env, chdbDirOf(dataDir));
  const retention = retentionFromEnv(process.env);
  keepSecrets(...env.secrets);
  // Two sessions for the pipeline's lane (one elsewhere): the gateway's statements (an order's
  // checks and audit rows, from its own process) then run beside a sink insert instead of waiting
  // for it; bench:flood saw each of an order's four store turns wait ~1 s behind the inserts.
  const store = createStore({ ...env.config, internalLane: { sessions: NPM_START_INTERNAL_SESSIONS } });
  onExit('store', () => store.close());
  await runMigrations(store.internal);
  // One process owns the store here, so it sets the TTLs of STORE_TTL_*_DAYS (packages/store).
  await applyRetention(store.internal, retention);
  return { store, env };
}
