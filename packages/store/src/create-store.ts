/** `createStore`: validates the options once, then opens the adapter they name. */
import {
  DEFAULT_INTERNAL_LANE,
  DEFAULT_USER_LANE,
  engineIsolationOf,
  laneLimits,
  type StoreConfig,
  ttlDeletesOf,
  validate,
} from './config.js';
import { createEmbeddedStore } from './embedded/embedded-store.js';
import { createServerStore } from './server/server-store.js';
import type { Store } from './store.js';

export function createStore(config: StoreConfig = {}): Store {
  validate(config);
  const limits = {
    internal: laneLimits('internalLane', config.internalLane, DEFAULT_INTERNAL_LANE),
    user: laneLimits('userLane', config.userLane, DEFAULT_USER_LANE),
  };
  return config.url
    ? createServerStore(config.url, config, limits)
    : createEmbeddedStore(config.dataDir, limits, {
        ttlDeletes: ttlDeletesOf(config, process.env),
        backupDir: config.backupDir,
        isolation: engineIsolationOf(config, process.env),
      });
}
