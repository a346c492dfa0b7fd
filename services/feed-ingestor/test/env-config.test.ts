import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { IngestorError, loadIngestorEnv, resolveWalOptions } from '../src/index.js';
import { readUniverseIds } from '../src/subscriptions/universe-file.js';

const BASE = {
  SVC_FEED_URL: 'ws://127.0.0.1:7075/',
  SVC_CLIENT_ID: '1000000001',
  SVC_ACCESS_TOKEN: 'very-secret-token',
  KAFKA_BROKERS: '127.0.0.1:9092',
};

describe('ingestor configuration from the environment', () => {
  it('reads a valid environment with documented defaults', () => {
    const config = loadIngestorEnv(BASE);
    expect(config.connections).toBe(5);
    expect(config.workers).toBe(2);
    expect(config.credentials.authType).toBe(2);
    expect(config.topics.trades).toBe('feed.trades');
    expect(config.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('names every bad value at once and never echoes the token', () => {
    try {
      loadIngestorEnv({
        ...BASE,
        SVC_FEED_URL: 'http://x',
        SVC_AUTH_TYPE: '7',
        INGESTOR_CONNECTIONS: '6',
        KAFKA_BROKERS: 'nohost',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IngestorError);
      const message = (error as Error).message;
      expect(message).toContain('SVC_FEED_URL must start with ws://');
      expect(message).toContain('SVC_AUTH_TYPE must be an integer in 1..3');
      expect(message).toContain('INGESTOR_CONNECTIONS must be an integer in 1..5');
      expect(message).toContain('KAFKA_BROKERS entry "nohost"');
      expect(message).not.toContain('very-secret-token');
    }
    expect(() => loadIngestorEnv({})).toThrowError(/SVC_CLIENT_ID is required/);
  });

  it('reads universes from JSON and CSV, keeping INX_EQ rows only', () => {
    const dir = tempDir('universe');
    const json = join(dir, 'u.json');
    writeFileSync(
      json,
      JSON.stringify([
        { securityId: 1000001, exchangeSegment: 'INX_EQ' },
        { securityId: 13, exchangeSegment: 'IDX_I' },
        1000002,
      ]),
    );
    expect(readUniverseIds(json)).toEqual(['1000001', '1000002']);
    const csv = join(dir, 'u.csv');
    writeFileSync(csv, 'securityId,exchangeSegment\n1000003,INX_EQ\n500,NSE_EQ\n1000003,INX_EQ\n');
    expect(readUniverseIds(csv)).toEqual(['1000003']);
    writeFileSync(csv, 'securityId\nabc\n');
    expect(() => readUniverseIds(csv)).toThrowError(/not a security id/);
  });
});

/** The write-ahead log's settings: off unless a directory is given, every value checked once. */
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
      'ingestor config.wal: "maxBytes" must be at least "segmentBytes" (16384)',
    );
    try {
      resolveWalOptions({ dir: '/w', fsyncEvery: 5 } as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IngestorError);
      expect((error as IngestorError).code).toBe('CONFIG_INVALID');
      expect((error as Error).message).toMatch(
        /^ingestor config.wal: unknown option "fsyncEvery" \(allowed: dir,/,
      );
    }
  });
});
