/** createSink's config and deps, read once by the declarative reader: defaults, ranges, unknown keys refused. */
import type { Store } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../src/errors.js';
import { createSink } from '../src/index.js';
import { sinkSettings } from '../src/sink-options.js';

// Checking reads no part of the store; only its presence is checked.
const store = {} as Store;
const brokers = ['127.0.0.1:9092'];

function refusal(config: object, deps: object = { store }): SinkError {
  try {
    createSink(config as Parameters<typeof createSink>[0], deps as Parameters<typeof createSink>[1]);
  } catch (error) {
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('CONFIG_INVALID');
    return error as SinkError;
  }
  throw new Error('accepted');
}

describe('sink config and deps', () => {
  it('fills in the documented defaults', () => {
    const settings = sinkSettings({ brokers, topics: { trades: 't.trades' } }, { store });
    expect(settings).toMatchObject({
      brokers,
      topics: { trades: 't.trades', ohlc: 'feed.ohlc', reference: 'feed.reference', status: 'feed.status' },
      groupId: 'feedpipe-sink',
      maxBatchRows: 100_000,
      maxBatchAgeMs: 500,
      maxBufferedRows: 400_000,
      sessionTimeoutMs: 10_000,
      diskGuard: undefined,
      retentionProbeMs: 30_000,
    });
  });

  it('refuses an unknown key with the allowed ones, a bad value with its range, and no brokers', () => {
    expect(refusal({ brokers, maxBatchRow: 5 }).message).toMatch(
      /sink config: unknown option "maxBatchRow" \(allowed: brokers, topics, groupId, maxBatchRows,/,
    );
    expect(refusal({ brokers, maxBatchAgeMs: 0 }).message).toContain(
      '"maxBatchAgeMs" must be an integer from 1 to 3600000',
    );
    expect(refusal({ brokers: [] }).message).toContain('"brokers" must be a list of at least 1');
    // A port handed in the config is refused there: config is data, the ports are deps.
    expect(refusal({ brokers, store }).message).toContain('sink config: unknown option "store"');
  });

  it('refuses an unknown dep with the allowed ones, and no store', () => {
    expect(refusal({ brokers }, { store, registy: {} }).message).toContain(
      'sink deps: unknown option "registy" (allowed: store, registry, afterInsert, log)',
    );
    expect(refusal({ brokers }, {}).message).toContain('"store" is required');
  });

  it('checks the disk guard whole', () => {
    const guard = { minFreeBytes: 0, minFreePercent: 10, intervalMs: 1_000 };
    expect(sinkSettings({ brokers, diskGuard: guard }, { store }).diskGuard).toEqual(guard);
    expect(refusal({ brokers, diskGuard: { ...guard, minFreePercent: 101 } }).message).toContain(
      'sink config.diskGuard: "minFreePercent" must be a number from 0 to 100',
    );
    expect(refusal({ brokers, diskGuard: { minFreeBytes: 0, intervalMs: 1_000 } }).message).toContain(
      '"minFreePercent" is required',
    );
  });
});
