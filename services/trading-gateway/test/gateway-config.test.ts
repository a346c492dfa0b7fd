/** createTradingGateway(config, deps), read once by the declarative reader before anything starts. */
import type { Store } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { createTradingGateway, resolveGatewayConfig } from '../src/index.js';

// Refused before the store is touched: only its presence is checked.
const store = {} as Store;

async function refusal(config: object, deps: object = { store }): Promise<string> {
  const error = await createTradingGateway(config, deps as never).then(
    () => new Error('accepted'),
    (e: unknown) => e as Error,
  );
  expect((error as { code?: string }).code).toBe('CONFIG_INVALID');
  return error.message;
}

describe('createTradingGateway(config, deps)', () => {
  it('refuses an unknown key of the config, in a section too, with the allowed ones', async () => {
    expect(await refusal({ tradng: {} })).toMatch(
      /^trading-gateway config: unknown option "tradng" \(allowed: host, port, .*server, trading, fills, postbacks, auditJournal\)/,
    );
    expect(await refusal({ trading: { maxQty: 5 } })).toBe(
      'trading-gateway config: unknown option "trading.maxQty" (allowed: maxQuantity, maxNotional, requireKnownInstrument, killSwitchCacheMs, killSwitchRefreshBehindMs)',
    );
    expect(await refusal({ fills: { snapshotAtIst: '25:00' } })).toContain('must be HH:MM');
  });

  it('refuses an unknown dep with the allowed ones, and no store', async () => {
    expect(await refusal({}, { store, brokr: {} })).toMatch(
      /^trading-gateway deps: unknown option "brokr" \(allowed: store, .*broker\)/,
    );
    expect(await refusal({}, {})).toContain('"store" is required');
  });

  it('reads config.postbacks as data: its ports and bad values refused, and it needs deps.kafkaBrokers', async () => {
    const postbacks = { secret: 'gateway-config-secret-0123', walDir: '/nonexistent/wal' };
    expect(await refusal({ postbacks: { ...postbacks, store } })).toMatch(
      /^trading-gateway config\.postbacks: unknown option "store" \(allowed: walDir, secret, /,
    );
    const bad = await refusal({ postbacks: { ...postbacks, secret: 'short', maxQueue: 0 } });
    expect(bad).toContain('"secret" must be 16-256 characters');
    expect(bad).toContain('"maxQueue" must be an integer from 1');
    expect(bad).not.toContain('short');
    expect(await refusal({ postbacks }, { store, postbacks })).toMatch(
      /^trading-gateway deps: unknown option "postbacks"/,
    );
    expect(await refusal({ postbacks })).toBe(
      'trading-gateway: config "postbacks" needs deps "kafkaBrokers"',
    );
    expect(resolveGatewayConfig({}).postbacks).toBeUndefined();
  });

  it('reads config.auditJournal as data, with its defaults, refusing bad values and it among the deps', async () => {
    expect(await refusal({ auditJournal: { dir: ' ' } })).toContain('"dir" must not be empty');
    expect(await refusal({ auditJournal: { dir: '/nonexistent/journal', maxRows: 5 } })).toMatch(
      /^trading-gateway config\.auditJournal: .*"maxRows" must be an integer from 100/,
    );
    expect(await refusal({}, { store, auditJournal: { dir: '/nonexistent/journal' } })).toMatch(
      /^trading-gateway deps: unknown option "auditJournal"/,
    );
    expect(resolveGatewayConfig({ auditJournal: { dir: '/j' } }).auditJournal).toEqual({
      dir: '/j',
      maxRows: 100_000,
      maxBytes: 256 << 20,
      fileBytes: 8 << 20,
      batchRows: 1_000,
    });
    expect(resolveGatewayConfig({}).auditJournal).toBeUndefined();
  });

  it('fills in the defaults', () => {
    const resolved = resolveGatewayConfig({ fills: { snapshotAtIst: 'off' } });
    expect(resolved.port).toBe(8090);
    expect(resolved.trading).toEqual({
      maxQuantity: 100_000,
      maxNotional: 10_000_000,
      requireKnownInstrument: true,
      killSwitchCacheMs: 2_000,
      killSwitchRefreshBehindMs: 60_000,
    });
    expect(resolved.fills).toEqual({
      syncDelayMs: 1_000,
      syncIntervalMs: 60_000,
      historyDays: 7,
      snapshotAtMs: undefined,
    });
    expect(resolveGatewayConfig({}).fills.snapshotAtMs).toBe((23 * 60 + 55) * 60_000);
  });
});
