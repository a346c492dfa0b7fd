/** The gateway's environment: where the trading credentials are read, and that they are all secrets. */
import { describe, expect, it } from 'vitest';
import { gatewayEnv, isTradingGatewayError } from '../src/index.js';

describe('gatewayEnv', () => {
  it('defaults to loopback:8090 and embedded chDB, with order routes and postbacks off', () => {
    const env = gatewayEnv({});
    expect(env).toMatchObject({ host: '127.0.0.1', port: 8090, logLevel: 'info', kafkaBrokers: [] });
    expect(env.broker).toBeUndefined();
    expect(env.postbacks).toBeUndefined();
    expect(env.store.dataDir).toBe('.data/chdb');
    expect(env.fills).toEqual({ syncIntervalMs: 60_000, historyDays: 7, snapshotAtIst: '23:55' });
  });

  it('takes the fill and snapshot settings', () => {
    const env = gatewayEnv({
      TRADING_GATEWAY_FILL_SYNC_INTERVAL_MS: '0',
      TRADING_GATEWAY_FILL_HISTORY_DAYS: '30',
      TRADING_GATEWAY_SNAPSHOT_AT: 'off',
    });
    expect(env.fills).toEqual({ syncIntervalMs: 0, historyDays: 30, snapshotAtIst: 'off' });
  });

  it('takes the credentials and the postback secret, and lists them as secrets', () => {
    const env = gatewayEnv({
      SVC_BASE_URL: 'http://127.0.0.1:7080',
      SVC_CLIENT_ID: '1000000001',
      SVC_ACCESS_TOKEN: 'token-0123456789',
      POSTBACK_SECRET: 'postback-secret-0123456789',
      POSTBACK_ALLOWLIST: '10.0.0.0/8, 127.0.0.1',
      KAFKA_BROKERS: 'a:9092,b:9092',
      CLICKHOUSE_URL: 'http://feedpipe:store-pass-0123@ch:8123',
      DATA_DIR: '/data',
    });
    expect(env.broker).toEqual({
      baseUrl: 'http://127.0.0.1:7080',
      clientId: '1000000001',
      accessToken: 'token-0123456789',
    });
    expect(env.postbacks).toEqual({
      secret: 'postback-secret-0123456789',
      walDir: '/data/postback-wal',
      allowlist: ['10.0.0.0/8', '127.0.0.1'],
    });
    expect(env.secrets).toEqual(
      expect.arrayContaining(['token-0123456789', 'postback-secret-0123456789', 'store-pass-0123']),
    );
  });

  it('refuses incomplete settings with CONFIG_INVALID naming the variable, never echoing a secret', () => {
    const refused = (vars: Record<string, string>) => {
      try {
        gatewayEnv(vars);
      } catch (error) {
        expect(isTradingGatewayError(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ SVC_BASE_URL: 'http://x', SVC_ACCESS_TOKEN: 'token-0123456789' })).toContain(
      'SVC_CLIENT_ID',
    );
    expect(refused({ POSTBACK_SECRET: 'postback-secret-0123456789' })).toContain('KAFKA_BROKERS');
    expect(refused({ POSTBACK_SECRET: 'postback-secret-0123456789' })).not.toContain('postback-secret');
    expect(refused({ TRADING_GATEWAY_PORT: '70000' })).toContain('TRADING_GATEWAY_PORT');
    expect(refused({ TRADING_GATEWAY_SNAPSHOT_AT: '25:00' })).toContain('TRADING_GATEWAY_SNAPSHOT_AT');
    expect(refused({ TRADING_GATEWAY_FILL_HISTORY_DAYS: '400' })).toContain(
      'TRADING_GATEWAY_FILL_HISTORY_DAYS',
    );
  });
});
