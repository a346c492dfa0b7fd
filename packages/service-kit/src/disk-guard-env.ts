/**
 * The disk guard's variables, read by every process that writes to the store (the sink, the
 * history loader): one schema spread into each, so their thresholds cannot drift apart.
 *
 * Default: pause below 10% free, no byte threshold. A percentage scales from a 64 MB test disk to a
 * server's terabytes; ClickHouse's merges need free space of the order of the parts they merge, so
 * a tenth of the disk is kept for them.
 */
import type { EnvSchema } from '@feedpipe/config';

export const DISK_GUARD_ENV = {
  STORE_MIN_FREE_PERCENT: {
    type: 'integer',
    min: 0,
    max: 99,
    default: 10,
    description: 'writes pause while the store has less than this % of its disk free (0: no % threshold)',
  },
  STORE_MIN_FREE_BYTES: {
    type: 'integer',
    min: 0,
    max: 1_000_000_000_000_000,
    default: 0,
    description: 'writes pause while the store has fewer free bytes than this (0: no byte threshold)',
  },
  STORE_DISK_CHECK_MS: {
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: 10_000,
    description: "how often the store's free space is read",
  },
} as const satisfies EnvSchema;

export interface DiskGuardEnv {
  minFreePercent: number;
  minFreeBytes: number;
  intervalMs: number;
}

/** The guard's settings from values read with a schema that spreads DISK_GUARD_ENV. */
export function diskGuardSettings(values: {
  STORE_MIN_FREE_PERCENT: number;
  STORE_MIN_FREE_BYTES: number;
  STORE_DISK_CHECK_MS: number;
}): DiskGuardEnv {
  return {
    minFreePercent: values.STORE_MIN_FREE_PERCENT,
    minFreeBytes: values.STORE_MIN_FREE_BYTES,
    intervalMs: values.STORE_DISK_CHECK_MS,
  };
}
