// Public surface of @feedpipe/service-kit: what every pipeline process needs around its own job.
// Each module has one job; services import these instead of each other.

export { AddressCap } from './address-cap.js';
export { BufferPool } from './buffer-pool.js';
export {
  DiskGuard,
  type DiskGuardOptions,
  type DiskReading,
  formatBytes,
  type GaugeLike,
  RESUME_MARGIN,
} from './disk-guard.js';
export {
  DISK_GUARD_ENV,
  type DiskGuardEnv,
  diskGuardSettings,
} from './disk-guard-env.js';
export { ServiceKitError, type ServiceKitErrorCode } from './errors.js';
export {
  ConnectionBudget,
  connectionCeiling,
  createLimitedServer,
  DEFAULT_HTTP_SERVER_LIMITS,
  FALLBACK_MAX_CONNECTIONS,
  HTTP_SERVER_ENV,
  type HttpServerLimits,
  httpServerConfigFromEnv,
  type LimitedServerOptions,
  type LimitedServerStats,
  limitedServerStats,
  OPS_SERVER_LIMITS,
  openFileLimit,
  processAddressCap,
  processConnectionBudget,
} from './http-server-limits.js';
export { type OpsServer, type OpsServerOptions, startOpsServer } from './ops-server.js';
export { PROCESS_METRICS_PREFIX, registerProcessMetrics } from './process-metrics.js';
export { onStopSignals, type StopSignalOptions } from './stop-signals.js';
