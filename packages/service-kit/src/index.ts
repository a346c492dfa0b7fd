// Public surface of @feedpipe/service-kit: what every pipeline process needs around its own job.
// Each module has one job; services import these instead of each other.

export { Backoff, type BackoffOptions } from './backoff.js';
export { BufferPool } from './buffer-pool.js';
export {
  allowedOf,
  defaultOf,
  type Env,
  type EnvReading,
  type EnvSchema,
  type EnvValues,
  type EnvVarSpec,
  loadEnv,
  type ReadEnvOptions,
  readEnv,
} from './env-schema.js';
export { ensureTopics } from './kafka-topics.js';
export { type OpsServer, type OpsServerOptions, startOpsServer } from './ops-server.js';
export { registerProcessMetrics } from './process-metrics.js';
export { type RetryOptions, retry, sleep } from './retry.js';
export { onStopSignals, type StopSignalOptions } from './stop-signals.js';
