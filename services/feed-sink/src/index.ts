// Public surface of @feedpipe/feed-sink: the Kafka -> ClickHouse sink as a library (the CLI,
// `feed-sink run`, is a thin shell over it).

export { loadSinkEnv, SINK_ENV, type SinkEnvConfig } from './env-config.js';
export { SinkError, type SinkErrorCode } from './errors.js';
export { createSink, type Sink, type SinkConfig, type SinkDeps, type SinkStats } from './kafka-sink.js';
export type { SinkDiskGuard } from './sink-options.js';
