/**
 * The live stream's topics come from @feedpipe/contracts and TOPIC_*, as for the ingestor and the
 * sink (issue #33 item 7): unset, the contract's defaults; set, the names given, through the CLI's
 * environment into the resolved configuration the live hub reads.
 */
import { DEFAULT_FEED_TOPICS, feedTopicsOf } from '@feedpipe/contracts';
import { describe, expect, it } from 'vitest';
import { QueryApiError, queryApiEnv, resolveConfig } from '../src/index.js';

describe('query API topic names', () => {
  it('defaults to the contract topics, in the environment and in the configuration', () => {
    expect(feedTopicsOf(queryApiEnv({}))).toEqual(DEFAULT_FEED_TOPICS);
    expect(resolveConfig({}).topics).toEqual(DEFAULT_FEED_TOPICS);
  });

  it('takes TOPIC_* names into the resolved configuration', () => {
    const vars = queryApiEnv({
      TOPIC_TRADES: 'scratch.trades',
      TOPIC_OHLC: 'scratch.ohlc',
      TOPIC_REFERENCE: 'scratch.reference',
      TOPIC_STATUS: 'scratch.status',
    });
    const topics = feedTopicsOf(vars);
    expect(resolveConfig({ topics }).topics).toEqual({
      trades: 'scratch.trades',
      ohlc: 'scratch.ohlc',
      reference: 'scratch.reference',
      status: 'scratch.status',
    });
    // One name given, the others from the contract.
    expect(resolveConfig({ topics: { trades: 'scratch.trades' } }).topics.ohlc).toBe(
      DEFAULT_FEED_TOPICS.ohlc,
    );
  });

  it('refuses two kinds on one topic', () => {
    expect(() => queryApiEnv({ TOPIC_OHLC: DEFAULT_FEED_TOPICS.trades })).toThrow(QueryApiError);
    expect(() => queryApiEnv({ TOPIC_OHLC: DEFAULT_FEED_TOPICS.trades })).toThrow(
      /TOPIC_\* names must differ/,
    );
  });
});
