/**
 * The store: two lanes of the port (port.ts) over ClickHouse, a server when a URL is given,
 * otherwise embedded chDB under a data directory. Both adapters offer the same operations, so
 * every caller (migrations, sink, loader, query API, gateway) runs the same code in tests and in
 * production.
 *
 * Two lanes, two kinds of work. `internal` carries the pipeline's own work (the sink's inserts,
 * the loader, migrations, API keys, the audit log); `user` carries queries made on behalf of API
 * callers. On embedded chDB each lane is a few engine sessions (`sessions`: 1 for `internal`, 2 for
 * `user` by default) behind an exclusive lane (see embedded/session-connection.ts): every statement
 * runs alone on its session, and a failed one is cleaned up inside its own turn, so no statement can
 * receive another's result.
 *
 * Why two lanes and not one priority queue: the engine cannot interrupt a running statement, so
 * in one lane a 30 s user query would hold the sink's next insert for 30 s whatever the priority.
 * With separate sessions the pipeline's work never waits for a user query's turn; user queries run
 * `userLane.sessions` at a time (their bounded share of the engine), wait at most
 * `userLane.maxWaitMs` and queue at most `userLane.maxQueued` deep. Parameters are bound in the
 * statement text on embedded chDB (binding/inline-binding.ts): chDB's Node binding would otherwise
 * run the parameterised statements of all sessions one at a time, process-wide.
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
