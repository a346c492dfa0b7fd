/**
 * The store: two lanes of the port (port.ts) over ClickHouse, a server when a URL is given,
 * otherwise embedded chDB under a data directory. Both adapters offer the same operations, so
 * every caller (migrations, sink, loader, query API, gateway) runs the same code in tests and in
 * production.
 *
 * Two lanes, two kinds of work. `internal` carries the pipeline's own work (the sink's inserts,
 * the loader, migrations, API keys, the audit log); `user` carries queries made on behalf of API
 * callers. On embedded chDB each is one engine session behind its own exclusive lane (see
 * embedded/session-connection.ts): every statement of the process runs alone on its session, and
 * a failed one is cleaned up inside its own turn, so no statement can receive another's result.
 *
 * Why two lanes and not one priority queue: the engine cannot interrupt a running statement, so
 * in one lane a 30 s user query would hold the sink's next insert for 30 s whatever the priority.
 * With two sessions the pipeline's work never waits for a user query's turn; user queries run one
 * at a time (their bounded share of the engine: at most one at once beside the pipeline's work),
 * wait at most `userLane.maxWaitMs` and queue at most `userLane.maxQueued` deep. The one coupling
 * left is inside chDB: it runs parameterized statements of all sessions one at a time, so an
 * internal parameterized query can wait for the one user parameterized query running, which the
 * caller's time limit (max_execution_time) bounds. Inserts (the sink) take no parameters.
 * On a server each lane has its own HTTP socket pool, so user queries cannot take the sockets the
 * pipeline needs; the server isolates queries itself. Given `userAccount`, the `user` lane also
 * logs in as that server user (the reader of infra/clickhouse/server/users.d/feedpipe-sql-reader.xml):
 * the server's grants and profile then bound what a caller's query can do, whatever the API lets
 * through. Without it both lanes log in as the user of `url` (set it in production).
 */
import type { LaneStats } from './embedded/exclusive-lane.js';
import type { SessionStats } from './embedded/session-connection.js';
import type { StoreLane } from './port.js';

/** Load of one lane: its queue, and for embedded chDB what its session had to clean up. */
export interface LaneLoad extends LaneStats, SessionStats {}

export interface StoreLoad {
  internal: LaneLoad;
  user: LaneLoad;
}

export type StoreMode = 'embedded' | 'server';

export interface Store {
  /** The pipeline's own work: inserts, loader, migrations, keys, audit. */
  readonly internal: StoreLane;
  /** Queries made on behalf of API callers: never in the way of `internal` (see the file comment). */
  readonly user: StoreLane;
  readonly mode: StoreMode;
  /** Whether results arrive as the engine writes them: see `StoreLane.streamsResults`. */
  readonly streamsResults: boolean;
  /** Where the data lives: the server URL without credentials, or the chDB directory. */
  readonly location: string;
  /** `user.readonlyLevel`: the `readonly` level a caller's query must ask for (see the port). */
  readonly userReadonly: 1 | 2;
  /** Queues and clean-ups of the lanes (zeros on a server, which has none). */
  load(): StoreLoad;
  close(): Promise<void>;
}
