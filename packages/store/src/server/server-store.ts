/**
 * The server adapter: each lane is a `@clickhouse/client` HTTP client with its own socket pool.
 * Results stream as the server writes them (wait_end_of_query = 0 on `stream`); everything else
 * waits for the end of the query, so an error is never mistaken for a finished answer.
 */
import { Readable } from 'node:stream';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { ClientLane } from '../client-lane.js';
import { redactUrl, type StoreConfig, type UserAccount } from '../config.js';
import type { LaneLimits } from '../embedded/exclusive-lane.js';
import type { LaneLoad, Store } from '../store.js';

const NO_LANE: LaneLoad = Object.freeze({
  running: 0,
  queued: 0,
  refused: 0,
  completed: 0,
  failures: 0,
  staleAnswers: 0,
  replaced: 0,
});

/** Blocks are sent as they are produced, not after the whole result (the HTTP default here). */
const STREAM_TRANSPORT = { wait_end_of_query: 0 } as const;

export function createServerStore(
  url: string,
  config: Pick<StoreConfig, 'requestTimeoutMs' | 'userAccount'>,
  limits: { internal: LaneLimits; user: LaneLimits },
): Store {
  const account = config.userAccount;
  // @clickhouse/client lets credentials in the URL override `username`/`password`: a reader login
  // goes with the URL stripped of the pipeline user's credentials.
  const serverClient = (maxOpenConnections: number, login?: UserAccount): ClickHouseClient =>
    createClient({
      ...(login ? { url: redactUrl(url), username: login.username, password: login.password } : { url }),
      request_timeout: config.requestTimeoutMs ?? 300_000,
      max_open_connections: maxOpenConnections,
      compression: { request: false, response: true },
      clickhouse_settings: {
        async_insert: 0,
        wait_end_of_query: 1,
        send_progress_in_http_headers: 1,
        http_headers_progress_interval_ms: '60000',
      },
    });
  const client = serverClient(10);
  // Sockets for callers' queries, apart from the pipeline's: as many as may wait in the lane.
  const userClient = serverClient(Math.min(limits.user.maxQueued, 64), account);
  const csvInsert =
    (on: ClickHouseClient) =>
    async (table: string, columns: readonly string[], csv: Buffer): Promise<void> => {
      await on.insert({
        table,
        columns: columns as [string, ...string[]],
        format: 'CSV',
        values: Readable.from([csv], { objectMode: false }),
      });
    };
  const userReadonly = account ? 2 : 1;
  return {
    internal: new ClientLane({
      client,
      name: 'internal',
      streamsResults: true,
      bindsInline: false,
      readonlyLevel: 1,
      streamTransport: STREAM_TRANSPORT,
      insertCsv: csvInsert(client),
    }),
    user: new ClientLane({
      client: userClient,
      name: 'user',
      streamsResults: true,
      bindsInline: false,
      readonlyLevel: userReadonly,
      streamTransport: STREAM_TRANSPORT,
      insertCsv: csvInsert(userClient),
    }),
    mode: 'server',
    streamsResults: true,
    location: redactUrl(url),
    userReadonly,
    load: () => ({ internal: { ...NO_LANE }, user: { ...NO_LANE } }),
    async close() {
      await Promise.all([client.close(), userClient.close()]);
    },
  };
}
