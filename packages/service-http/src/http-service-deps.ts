/**
 * What every HTTP service's factory is handed besides its config (`createX(config, deps)`), as one
 * schema for the declarative reader: a service spreads it and adds its own.
 */
import type { OptionsSchema } from '@feedpipe/config';

export const HTTP_SERVICE_DEPS = {
  /** The store port (its lanes). */
  store: { kind: 'given', required: true },
  kafkaBrokers: { kind: 'list' },
  /** A static instrument list beside the instrument master. */
  instruments: { kind: 'list' },
  /** The clock, for tests. */
  now: { kind: 'given' },
  /** Register the process metrics on the service's registry. */
  processMetrics: { kind: 'boolean' },
  logStream: { kind: 'given' },
  /** Values scrubbed from every log line. */
  logSecrets: { kind: 'list' },
} as const satisfies OptionsSchema;
