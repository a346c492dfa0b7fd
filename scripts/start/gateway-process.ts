/**
 * The trading gateway of `npm start`, in a process of its own (as compose runs it): a flood of
 * connections at the query API's port, handled on npm start's event loop, then cannot hold up
 * the accepting, parsing and answering of orders, which happen on the gateway's. The gateway
 * reaches what only npm start holds (the embedded store, the account's token and its one rate
 * limiter) through its parent (child/store-calls.ts, child/account-calls.ts), and is supervised
 * (child/supervisor.ts): restarted if it dies, stopped in npm start's stop order.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { RateLimiter } from '@feedpipe/broker-api';
import type { Credentials } from '@feedpipe/credentials';
import type { Store } from '@feedpipe/store';
import { offerAccount } from './child/account-calls.js';
import { offerStore, type StoreFacts, storeFacts } from './child/store-calls.js';
import { type SupervisedChild, startSupervisedChild } from './child/supervisor.js';
import { keepSecrets, log } from './log.js';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';

export interface GatewayInputs {
  env: StartEnv;
  store: Store;
  brokers: string[];
  /** The service's REST URLs; without a base URL the gateway has no broker to send orders to. */
  baseUrl: string | undefined;
  authUrl: string | undefined;
  clientId: string;
  tokens: Credentials;
  storeSecrets: string[];
  dataDir: string;
  /** The account's one limiter (shared with the quote poller); undefined: the client's own. */
  rateLimiter: RateLimiter | undefined;
  /** Names its keys: created by the first generation only, shown once in the banner. */
  keyName: string;
}

/** What a generation of the gateway process starts with (sent over the channel at its start). */
export interface GatewayInit {
  host: string;
  /** The first generation's port is configured (0: any); later ones take the port it got. */
  port: number;
  brokers: string[];
  baseUrl: string | undefined;
  authUrl: string | undefined;
  clientId: string;
  /** Through the parent's limiter (true), or the client's own. */
  sharedLimiter: boolean;
  postbackSecret: string;
  postbackWalDir: string;
  auditJournalDir: string;
  logSecrets: string[];
  store: StoreFacts;
  /** Set for the first generation only: the names of the keys to create. */
  createKeysNamed: string | undefined;
}

export interface GatewayReady {
  url: string;
  pid: number;
  /** The keys created (first generation only). */
  keys: { trade: string; admin: string } | undefined;
}

export interface TradingGatewayProcess {
  url: string;
  postbackSecret: string;
  keys: { trade: string; admin: string };
  process: SupervisedChild<GatewayReady>;
}

export async function startTradingGatewayProcess(inputs: GatewayInputs): Promise<TradingGatewayProcess> {
  const postbackSecret = inputs.env.POSTBACK_SECRET ?? randomBytes(24).toString('base64url');
  keepSecrets(postbackSecret);
  const configuredPort = inputs.env.TRADING_GATEWAY_PORT;
  const gateway = await startSupervisedChild<GatewayInit, GatewayReady>({
    name: 'trading-gateway',
    entry: new URL('./gateway-child.ts', import.meta.url),
    init: (previous) => ({
      host: inputs.env.TRADING_GATEWAY_HOST,
      port: previous ? Number(new URL(previous.url).port) : configuredPort,
      brokers: inputs.brokers,
      baseUrl: inputs.baseUrl,
      authUrl: inputs.authUrl,
      clientId: inputs.clientId,
      sharedLimiter: inputs.rateLimiter !== undefined,
      postbackSecret,
      postbackWalDir: join(inputs.dataDir, 'postback-wal'),
      auditJournalDir: join(inputs.dataDir, 'audit-journal'),
      logSecrets: [...inputs.tokens.secrets(), ...inputs.storeSecrets],
      store: storeFacts(inputs.store),
      createKeysNamed: previous ? undefined : inputs.keyName,
    }),
    offer: (channel) => {
      offerStore(channel, inputs.store);
      const account = offerAccount(channel, inputs.tokens, inputs.rateLimiter);
      return { close: () => account.releaseAll() };
    },
    healthUrl: (ready) => `${ready.url}/healthz`,
    log,
  });
  onExit('trading-gateway', () => gateway.stop());
  const { url, keys } = gateway.ready;
  if (!keys) throw new Error('the gateway process created no keys');
  return { url, postbackSecret, keys, process: gateway };
}
