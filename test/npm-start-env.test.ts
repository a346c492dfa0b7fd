/**
 * npm start's own variables, read once at start by the services' env reader (scripts/start/start-env.ts):
 * the defaults it documents, and every bad value named in one CONFIG_INVALID before anything starts,
 * a secret never echoed.
 */
import { describe, expect, it } from 'vitest';
import { readStartEnv, type StartConfigError } from '../scripts/start/start-env.js';

function refusal(env: Record<string, string>): StartConfigError {
  try {
    readStartEnv(env);
  } catch (error) {
    return error as StartConfigError;
  }
  throw new Error('the environment was accepted');
}

describe('npm start environment', () => {
  it('fills in the defaults of an empty environment (blank means unset)', () => {
    const env = readStartEnv({ KAFKA_BROKERS: '', SVC_FEED_URL: ' ' });
    expect(env).toMatchObject({
      DATA_DIR: '.data',
      DEMO_INSTRUMENTS: 5_000,
      KAFKA_BROKERS: undefined,
      SVC_FEED_URL: undefined,
      METRICS_PORT: 0,
      INGESTOR_OPS_PORT: 0,
      KAFKA_METRICS_PORT: 0,
      QUERY_API_HOST: '127.0.0.1',
      QUERY_API_PORT: 8080,
      QUERY_API_CLICKHOUSE_PORT: 8124,
      TRADING_GATEWAY_PORT: 8090,
      SIM_TOKEN_LIFETIME_S: 900,
      POSTBACK_SECRET: undefined,
      QUOTE_POLLER: 'on',
      QUOTES_FILE: 'services/history-loader/universe/quotes-demo.json',
    });
  });

  it('reads the values it is given, brokers as a list', () => {
    const env = readStartEnv({ KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.1:9093', METRICS_PORT: '9464' });
    expect(env.KAFKA_BROKERS).toEqual(['127.0.0.1:9092', '127.0.0.1:9093']);
    expect(env.METRICS_PORT).toBe(9464);
  });

  it('names every bad value in one CONFIG_INVALID, with what is allowed, and no secret', () => {
    const error = refusal({
      DEMO_INSTRUMENTS: '0',
      QUERY_API_PORT: 'http',
      QUOTE_POLLER: 'maybe',
      SIM_TOKEN_LIFETIME_S: '30',
      KAFKA_BROKERS: 'nohost',
      SVC_FEED_URL: 'http://127.0.0.1:1/feed',
      POSTBACK_SECRET: 's3cret-value',
      STORE_MIN_FREE_PERCENT: '101',
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message.split('\n')).toEqual([
      'invalid configuration:',
      '  - DEMO_INSTRUMENTS must be an integer in 1..25000, got "0"',
      '  - KAFKA_BROKERS entry "nohost" must be host:port',
      '  - SVC_FEED_URL must start with ws:// or wss://',
      '  - SIM_TOKEN_LIFETIME_S must be an integer in 60..86400, got "30"',
      '  - QUERY_API_PORT must be an integer in 0..65535, got "http"',
      '  - QUOTE_POLLER must be one of on, off, got "maybe"',
      expect.stringMatching(/^ {2}- STORE_MIN_FREE_PERCENT must be /),
    ]);
    expect(error.message).not.toContain('s3cret-value');
  });
});
