/**
 * What `npm start` prints: the banner on stdout once everything runs (where each part is, the keys
 * shown once), then a line on stderr every 10 s with how much has flowed.
 */
import type { Simulator } from '@feedpipe/broker-sim';
import { FEED_TABLES } from '@feedpipe/contracts';
import type { FeedIngestor } from '@feedpipe/feed-ingestor';
import type { Sink } from '@feedpipe/feed-sink';
import type { HistoryLoader } from '@feedpipe/history-loader';
import { jdbcUrlOf } from '@feedpipe/query-api';
import type { StartKeys } from './http-services.js';
import { log } from './log.js';
import { FEED_CONNECTIONS } from './pipeline.js';
import { onExit } from './stop-order.js';

export interface BannerFacts {
  sim: Simulator | undefined;
  feedUrl: string;
  brokers: string[];
  kafkaNote: string;
  /** The local broker's metrics endpoint, if it serves one. */
  kafkaMetricsUrl: string | undefined;
  store: { mode: string; location: string; sharedLogin: boolean };
  tokenSource: string;
  instruments: number;
  apiUrl: string;
  /** The query API's ClickHouse-protocol port (root of the port), if it has one. */
  clickhouseUrl: string | undefined;
  gatewayUrl: string;
  opsUrl: string;
  /** The ingestor's subscription route and its ops key (of this start). */
  subscriptions: { url: string; key: string };
  keys: StartKeys;
  postbackNote: string;
}

/** A URL for a person to read: scheme, host and path, never a query string or user info. */
function printable(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

export function printBanner(f: BannerFacts): void {
  const { sim, apiUrl, gatewayUrl, opsUrl, keys } = f;
  process.stdout.write(
    [
      '',
      'feedpipe is running',
      `  upstream    ${sim ? `simulator: REST ${printable(`${sim.rest?.baseUrl}/v2`)}, feed ${printable(sim.feed.url)}` : `real service: feed ${printable(f.feedUrl)}`}`,
      `  Kafka       ${f.brokers.join(',')}  (${f.kafkaNote})`,
      `  ClickHouse  ${f.store.mode === 'embedded' ? 'embedded chDB' : 'server'} at ${f.store.location}${f.store.sharedLogin ? ' (no CLICKHOUSE_SQL_USER: callers query as the CLICKHOUSE_URL user)' : ''}`,
      `  token       source ${f.tokenSource}, renewed ahead of expiry when the source can (metric feedpipe_token_expiry_seconds)`,
      `  ingestor    ${f.instruments} instruments over ${FEED_CONNECTIONS} connections -> feed.trades, feed.ohlc, feed.reference, feed.status`,
      `  query API   ${apiUrl}   docs ${apiUrl}/docs   (read-only: analytics, SQL, live stream, status page)`,
      ...(f.clickhouseUrl
        ? [
            `  JDBC        ${jdbcUrlOf(f.clickhouseUrl)}   (DBeaver and other ClickHouse tools: ClickHouse's HTTP protocol at ${f.clickhouseUrl}/ and ${apiUrl}/clickhouse; user any, password the read key)`,
          ]
        : []),
      `  gateway     ${gatewayUrl}   docs ${gatewayUrl}/docs   (orders, account, postbacks, order updates)`,
      '  API keys    shown once, send them in the x-api-key header; each service has its own:',
      `    query API read      ${keys.read}   (analytics, SQL, live stream, status page)`,
      `    query API admin     ${keys.admin}   (create, list, revoke keys: ${apiUrl}/v1/admin/keys)`,
      `    gateway trade       ${keys.trade}   (orders and account at ${gatewayUrl})`,
      `    gateway admin       ${keys.gatewayAdmin}   (the gateway's keys: ${gatewayUrl}/v1/admin/keys)`,
      `    ingestor ops        ${f.subscriptions.key}   (add or remove instruments while running: ${f.subscriptions.url})`,
      `  status      ${apiUrl}/status   (sign in with the read key; it is kept in the browser tab, never in the URL)`,
      `  postbacks   ${gatewayUrl}/postbacks/orders/<secret>: ${f.postbackNote}`,
      `  metrics     pipeline ${opsUrl}/metrics   API ${apiUrl}/metrics   gateway ${gatewayUrl}/metrics${f.kafkaMetricsUrl ? `   Kafka ${f.kafkaMetricsUrl}` : ''}   health ${opsUrl}/healthz   ready ${opsUrl}/readyz`,
      `  notebook    pandas.read_parquet('${apiUrl}/v1/instruments/<id>/bars?from=<ISO time>&interval=1m&format=parquet', storage_options={'x-api-key': '<key>'})`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

/** Every 10 s: records to Kafka, ticks stored, connections open and the history load's progress. */
export function startFlowLog(
  ingestor: FeedIngestor,
  sink: Sink,
  loader: Pick<HistoryLoader, 'status'> | undefined,
): void {
  const statusTimer = setInterval(async () => {
    const stats = ingestor.stats();
    const sinkStats = sink.stats();
    const open = stats.connections.filter((c) => c.state === 'open').length;
    const history = loader?.status();
    log(
      `flowing: ${stats.produced} records to Kafka, ${sinkStats.inserted[FEED_TABLES.ticks.name] ?? 0} ticks in ClickHouse, ${open}/${FEED_CONNECTIONS} connections open` +
        (history
          ? `; history ${history.unitsFinished}/${history.unitsTotal} units, ${history.rowsWritten} rows`
          : ''),
    );
  }, 10_000);
  statusTimer.unref();
  onExit('status', async () => clearInterval(statusTimer));
}
