/**
 * Test setup of the gateway: an embedded store in a fresh directory, migrated, a gateway over it
 * with its audit journal in a fresh directory, and gateway keys of each scope.
 */
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import {
  createTradingGateway,
  type TradingGateway,
  type TradingGatewayConfig,
  type TradingGatewayDeps,
} from '../src/index.js';

export interface Harness {
  store: Store;
  gateway: TradingGateway;
  trade: Record<string, string>;
  /** A key without the trade scope (admin only): what a key of the wrong scope gets. */
  admin: Record<string, string>;
  /** A second trade key: another desk or strategy, which must not reach the first key's orders. */
  trade2: Record<string, string>;
  /** A supervisor key (trade and admin): every key's orders, lifting the kill switch. */
  supervisor: Record<string, string>;
  close(): Promise<void>;
}

export async function startHarness(
  config: TradingGatewayConfig = {},
  deps: Omit<TradingGatewayDeps, 'store'> = {},
): Promise<Harness> {
  const store = createStore({ dataDir: tempDir('trading-gateway') });
  await runMigrations(store.internal);
  // The journal on, as the CLI and npm start run the gateway: every order test goes through it.
  const gateway = await createTradingGateway(
    { port: 0, auditJournal: { dir: tempDir('audit-journal') }, ...config },
    { store, ...deps },
  );
  const trade = { 'x-api-key': (await gateway.keys.create('trader', ['trade'])).key };
  const admin = { 'x-api-key': (await gateway.keys.create('keeper', ['admin'])).key };
  const trade2 = { 'x-api-key': (await gateway.keys.create('other-desk', ['trade'])).key };
  const supervisor = { 'x-api-key': (await gateway.keys.create('supervisor', ['trade', 'admin'])).key };
  return {
    store,
    gateway,
    trade,
    admin,
    trade2,
    supervisor,
    async close() {
      await gateway.stop();
      await store.close();
    },
  };
}
