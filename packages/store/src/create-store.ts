/** `createStore`: reads the options once, then opens the adapter they name. */
import { engineIsolationOf, readStoreConfig, type StoreConfig, ttlDeletesOf } from './config.js';
import { createEmbeddedStore } from './embedded/embedded-store.js';
import { createServerStore } from './server/server-store.js';
import type { Store } from './store.js';

export function createStore(config: StoreConfig = {}): Store {
  const settings = readStoreConfig(config);
  return settings.url
    ? createServerStore(settings.url, settings, settings.limits)
    : createEmbeddedStore(settings.dataDir, settings.limits, {
        ttlDeletes: ttlDeletesOf(config, process.env),
        backupDir: settings.backupDir,
        isolation: engineIsolationOf(config, process.env),
      });
}
