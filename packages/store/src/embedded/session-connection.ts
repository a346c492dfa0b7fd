/**
 * A `Connection` for `@clickhouse/client` over chDB sessions, one per slot of an exclusive lane:
 * every operation runs alone on its slot's session and leaves that session clean before the slot
 * is handed on. (A lane of one slot is one session used one operation at a time; a lane of several
 * runs that many operations at once, each on its own session.)
 *
 * Why: embedded chDB (3.4) keeps the partial output of a query that failed while producing rows
 * (result limit, timeout, an exception mid-stream) and hands it to the NEXT query of the same
 * session as that query's result. The state is per session (a second session on the same data
 * directory is not affected), so isolation is built from two rules:
 *  1. one operation at a time per session (the lane), and
 *  2. after any failed operation, still inside the failed operation's turn, a sentinel query
 *     selecting a fresh random token runs until its answer is exactly that token; if it is not
 *     after `MAX_DRAINS` tries, the session is thrown away and a fresh one opened.
 * So the next operation of any caller starts on a session whose last answer was verified to be
 * its own. chDB's own `abort_signal` handling is not used: it settles the caller early while the
 * engine keeps computing, which would free the lane under a running statement; here an abort
 * only stops an operation that has not started.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type {
  ChdbConnection,
  ConnBaseQueryParams,
  ConnCommandResult,
  ConnExecParams,
  ConnExecResult,
  Connection,
  ConnInsertParams,
  ConnInsertResult,
  ConnPingParams,
  ConnPingResult,
  ConnQueryResult,
} from 'chdb/connection';
import type { ExclusiveLane } from './exclusive-lane.js';

/** Sentinels tried after a failure before the session is replaced. */
const MAX_DRAINS = 3;

type RawInsertParams = Parameters<ChdbConnection['chdb']['rawInsert']>[0];

/**
 * What this layer needs of an engine session: chDB's connection surface. The sessions are those of
 * the engine process (engine-process/engine-process.ts), which gives that surface across the pipe.
 */
export type EngineSessionSurface = Pick<
  ChdbConnection,
  'query' | 'exec' | 'command' | 'insert' | 'ping' | 'close'
> & {
  chdb: Pick<ChdbConnection['chdb'], 'rawInsert'>;
};

export interface SessionStats {
  /** Operations that failed (each followed by a clean-up). */
  failures: number;
  /** Stale answers taken off the session by a sentinel. */
  staleAnswers: number;
  /** Sessions replaced because the sentinel could not confirm a clean one. */
  replaced: number;
}

export class SessionConnection implements Connection<Readable> {
  readonly #open: () => EngineSessionSurface;
  readonly #lane: ExclusiveLane;
  /** The session of each slot of the lane. */
  readonly #sessions: EngineSessionSurface[];
  #closed = false;
  readonly #stats: SessionStats = { failures: 0, staleAnswers: 0, replaced: 0 };

  constructor(open: () => EngineSessionSurface, lane: ExclusiveLane) {
    this.#open = open;
    this.#lane = lane;
    this.#sessions = Array.from({ length: lane.slots }, () => open());
  }

  get stats(): SessionStats {
    return { ...this.#stats };
  }

  query(params: ConnBaseQueryParams): Promise<ConnQueryResult<Readable>> {
    return this.#turn(params.abort_signal, (s) => s.query(withoutSignal(params)));
  }

  exec(params: ConnExecParams<Readable>): Promise<ConnExecResult<Readable>> {
    return this.#turn(params.abort_signal, (s) => s.exec(withoutSignal(params)));
  }

  command(params: ConnBaseQueryParams): Promise<ConnCommandResult> {
    return this.#turn(params.abort_signal, (s) => s.command(withoutSignal(params)));
  }

  insert(params: ConnInsertParams<Readable>): Promise<ConnInsertResult> {
    return this.#turn(params.abort_signal, (s) => s.insert(withoutSignal(params)));
  }

  /** chDB's zero-copy insert of a finished buffer, in the same lane as everything else. */
  async rawInsert(params: RawInsertParams): Promise<void> {
    await this.#turn(undefined, (s) => s.chdb.rawInsert(params));
  }

  ping(params: ConnPingParams): Promise<ConnPingResult> {
    return this.#turn(undefined, async (s, slot) => {
      const result = await s.ping(params);
      // ping() reports a failure instead of throwing: clean up after it all the same.
      if (!result.success) await this.#cleanUp(slot);
      return result;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#lane.close();
    await Promise.all(this.#sessions.map((session) => session.close()));
  }

  async #turn<T>(
    signal: AbortSignal | undefined,
    op: (session: EngineSessionSurface, slot: number) => Promise<T>,
  ): Promise<T> {
    return this.#lane.run(async (slot) => {
      if (signal?.aborted) throw new Error('the operation was aborted before it started');
      try {
        return await op(this.#sessions[slot] as EngineSessionSurface, slot);
      } catch (error) {
        await this.#cleanUp(slot);
        throw error;
      }
    });
  }

  /** Runs inside the failed operation's turn, on its slot's session: see the file comment. */
  async #cleanUp(slot: number): Promise<void> {
    this.#stats.failures += 1;
    const session = this.#sessions[slot] as EngineSessionSurface;
    for (let attempt = 0; attempt < MAX_DRAINS; attempt++) {
      const token = randomUUID();
      try {
        const result = await session.query({
          query: `SELECT '${token}'`,
          clickhouse_settings: { default_format: 'TabSeparatedRaw' },
        });
        const chunks: Buffer[] = [];
        for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
        if (Buffer.concat(chunks).toString('utf8').trim() === token) return;
        this.#stats.staleAnswers += 1;
      } catch {
        // A failed sentinel is itself cleaned up by the next attempt.
      }
    }
    // No verified clean answer: the session goes, with whatever it still holds. The new session
    // is opened before the old one is closed, so the data directory never loses its last session.
    this.#sessions[slot] = this.#open();
    this.#stats.replaced += 1;
    await session.close().catch(() => undefined);
  }
}

function withoutSignal<P extends { abort_signal?: AbortSignal | undefined }>(params: P): P {
  if (params.abort_signal === undefined) return params;
  const { abort_signal: _ignored, ...rest } = params;
  return rest as P;
}
