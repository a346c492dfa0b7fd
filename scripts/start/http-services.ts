/**
 * The HTTP services of `npm start`: the query API (read-only: analytics, SQL, live stream, status
 * page) here, and the trading gateway (orders, postbacks, order updates: the only part given the
 * service's credentials) in a process of its own (gateway-process.ts), each with keys of its own.
 */
import type { Simulator } from '@feedpipe/broker-sim';
import type { Credentials } from '@feedpipe/credentials';
import {
  createQueryApi,
  type PipelineStatusSource,
  type QueryApi,
  readInstrumentList,
} from '@feedpipe/query-api';
import type { Store } from '@feedpipe/store';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';

/**
 * `npm start`'s ClickHouse-protocol port: beside ClickHouse's own 8123, so a ClickHouse server on
 * the same machine (docker compose) keeps its port.
 */

export async function startQueryApi(inputs: {
  store: Store;
  brokers: string[];
  status: PipelineStatusSource;
  storeSecrets: string[];
  env: StartEnv;
}): Promise<{ api: QueryApi; url: string; clickhouseUrl: string | undefined }> {
  const api = await createQueryApi(
    {
      host: inputs.env.QUERY_API_HOST,
      port: inputs.env.QUERY_API_PORT,
      // ClickHouse's protocol at the root of a port of its own, for the JDBC driver (DBeaver).
      clickhousePort: inputs.env.QUERY_API_CLICKHOUSE_PORT,
      logLevel: false,
    },
    {
      store: inputs.store,
      kafkaBrokers: inputs.brokers,
      pipelineStatus: inputs.status,
      logSecrets: inputs.storeSecrets,
      // Symbols come from market.instruments (loaded at start); the file only overrides them.
      ...(inputs.env.QUERY_API_INSTRUMENTS_FILE
        ? { instruments: readInstrumentList(inputs.env.QUERY_API_INSTRUMENTS_FILE) }
        : {}),
    },
  );
  const url = await api.start();
  onExit('query-api', () => api.stop());
  return { api, url, clickhouseUrl: api.clickhouseUrl };
}

export interface StartKeys {
  read: string;
  admin: string;
  trade: string;
  gatewayAdmin: string;
}

/** The prefix of this start's key names (the gateway's process names its own with it). */
export const startKeyName = (): string => `npm-start-${new Date().toISOString()}`;

/**
 * Separate keys, so a notebook or the status page never holds the power to trade or manage keys;
 * each service has its own: a query API key is nothing to the gateway, and the other way round.
 * The gateway's are made in its process (gateway-child.ts), this start's query API keys here.
 */
export async function createStartKeys(
  api: QueryApi,
  keyName: string,
  gatewayKeys: { trade: string; admin: string },
): Promise<StartKeys> {
  const read = await api.keys.create(`${keyName}-read`, ['read']);
  const admin = await api.keys.create(`${keyName}-admin`, ['admin']);
  return { read: read.key, admin: admin.key, trade: gatewayKeys.trade, gatewayAdmin: gatewayKeys.admin };
}

/** Where order updates come from, as the banner says it. */
export async function registerPostbackUrl(
  sim: Simulator | undefined,
  tokens: Credentials,
  gatewayUrl: string,
  postbackSecret: string,
): Promise<string> {
  if (!sim?.rest) return 'register the postback URL with the service (web console) to receive order updates';
  // As the web console would: the simulator posts every order update of this account here.
  const response = await fetch(`${sim.rest.baseUrl}/v2/postback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'access-token': await tokens.getToken() },
    body: JSON.stringify({ postbackUrl: `${gatewayUrl}/postbacks/orders/${postbackSecret}` }),
  });
  return response.ok
    ? 'the simulator posts order updates here -> Kafka orders.updates + market.order_events'
    : `postback registration refused (HTTP ${response.status})`;
}
