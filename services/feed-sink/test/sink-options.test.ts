/** createSink's options, read once by the declarative reader: defaults, ranges, unknown keys refused. */
import type { Store } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../src/errors.js';
import { type SinkOptions, sinkSettings } from '../src/sink-options.js';

// sinkSettings reads no part of the store; only its presence is checked.
const store = {} as Store;
const brokers = ['127.0.0.1:9092'];

function refusal(options: object): SinkError {
  try {
    sinkSettings(options as SinkOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('CONFIG_INVALID');
    return error as SinkError;
  }
  throw new Error('accepted');
}

describe('sink options', () => {
  it('fills in the documented defaults', () => {
    const settings = sinkSettings({ brokers, store, topics: { trades: 't.trades' } });
    expect(settings).toMatchObject({
      topics: { trades: 't.trades', ohlc: 'feed.ohlc', reference: 'feed.reference', status: 'feed.status' },
      groupId: 'feedpipe-sink',
      maxBatchRows: 100_000,
      maxBatchAgeMs: 500,
      maxBufferedRows: 400_000,
      sessionTimeoutMs: 10_000,
      retentionProbeMs: 30_000,
    });
  });

  it('refuses an unknown key with the allowed ones, a bad value with its range, and no brokers', () => {
    expect(refusal({ brokers, store, maxBatchRow: 5 }).message).toMatch(
      /unknown option "maxBatchRow" \(allowed: brokers, store, topics, groupId, maxBatchRows,/,
    );
    expect(refusal({ brokers, store, maxBatchAgeMs: 0 }).message).toContain(
      '"maxBatchAgeMs" must be an integer from 1 to 3600000',
    );
    expect(refusal({ brokers: [], store }).message).toContain('"brokers" must be a list of at least 1');
    expect(refusal({ brokers }).message).toContain('"store" is required');
  });
});
