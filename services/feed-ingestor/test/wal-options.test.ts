/** The write-ahead log's settings: off unless a directory is given, every value checked once. */
import { describe, expect, it } from 'vitest';
import { IngestorError, loadIngestorEnv, resolveWalOptions } from '../src/index.js';

const BASE = {
  SVC_FEED_URL: 'ws://127.0.0.1:7075/',
  SVC_CLIENT_ID: '1000000001',
  SVC_ACCESS_TOKEN: 'very-secret-token',
  KAFKA_BROKERS: '127.0.0.1:9092',
};

describe('write-ahead log settings', () => {
  it('is off without INGESTOR_WAL_DIR and takes the documented defaults with it', () => {
    expect(loadIngestorEnv(BASE).wal).toBeUndefined();
    const wal = loadIngestorEnv({ ...BASE, INGESTOR_WAL_DIR: '/var/lib/feedpipe/wal' }).wal;
    expect(wal).toEqual({
      dir: '/var/lib/feedpipe/wal',
      maxBytes: 1024 ** 3,
      segmentBytes: 64 * 1024 ** 2,
      fsync: 'none',
      fsyncIntervalMs: 1_000,
    });
    expect(resolveWalOptions(wal as NonNullable<typeof wal>).retryAfterMs).toBe(5_000);
  });

  it('names a bad policy and a bound below one segment', () => {
    expect(() => loadIngestorEnv({ ...BASE, INGESTOR_WAL_DIR: '/w', INGESTOR_WAL_FSYNC: 'always' })).toThrow(
      /INGESTOR_WAL_FSYNC/,
    );
    expect(() => resolveWalOptions({ dir: '/w', maxBytes: 8_192, segmentBytes: 16_384 })).toThrow(
      'wal.maxBytes must be an integer in 16384..1099511627776, got 8192',
    );
    try {
      resolveWalOptions({ dir: '/w', fsyncEvery: 5 } as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IngestorError);
      expect((error as IngestorError).code).toBe('CONFIG_INVALID');
      expect((error as Error).message).toBe('unknown wal option "fsyncEvery"');
    }
  });
});
