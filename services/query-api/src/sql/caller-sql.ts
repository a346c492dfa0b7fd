/**
 * The one path caller SQL takes, whichever protocol brought it (POST/GET /v1/sql, the ClickHouse
 * HTTP endpoint under /clickhouse): the guard (sql-guard.ts) judges the text and hands back what to
 * run, and this runs it with the API's settings appended by code: readonly (1, or 2 as a server's
 * reader user, whose profile pins it) and the time, memory and result limits. Only the output
 * format and the framing around the bytes differ between the protocols.
 */
import type { Readable } from 'node:stream';
import type { QuerySettings, StreamFormat } from '@feedpipe/store';
import type { ApiContext } from '../context.js';
import type { OutputFormat } from '../query/formats.js';
import { KeyShare } from '../query/key-share.js';
import type { QueryParams } from '../query/query-runner.js';
import { type CheckOptions, type GuardedSql, SqlGuard } from './sql-guard.js';

export interface CallerSqlRun {
  /** The statement as the guard passed it (kind, the FORMAT the text named, if any). */
  guarded: GuardedSql;
  stream: Readable;
}

/**
 * How the result is written: `api`, one of the API's tabular formats with its output settings
 * (formats.ts: 64-bit integers as JSON numbers, instants in UTC as ISO text or Arrow timestamps,
 * uncompressed IPC), as every /v1 route writes; `engine`, a ClickHouse format with the engine's own
 * defaults, as a ClickHouse server would answer.
 */
export type CallerSqlOutput =
  | { settings: 'api'; format: OutputFormat }
  | { settings: 'engine'; format: StreamFormat };

/** What a server's share is computed from: it runs several statements at once of its own accord. */
const SERVER_SESSIONS = 4;

export class CallerSql {
  readonly guard: SqlGuard;
  /** The settings every caller query runs with; a protocol may tighten (never loosen) the limits. */
  readonly settings: Readonly<QuerySettings>;
  /** Each key's share of the engine's sessions (key-share.ts). */
  readonly shares: KeyShare;
  readonly #ctx: ApiContext;

  constructor(ctx: ApiContext) {
    const limits = ctx.config.sql;
    this.#ctx = ctx;
    this.guard = new SqlGuard(ctx.runner, limits);
    this.settings = {
      readonly: ctx.runner.readonlyLevel,
      max_execution_time: limits.maxExecutionSec,
      max_memory_usage: limits.maxMemoryBytes,
      max_result_rows: limits.maxResultRows,
      max_result_bytes: limits.maxResultBytes,
      result_overflow_mode: 'throw',
    };
    // All of the engine's sessions but one (at least one); a server schedules its own threads.
    const sessions = ctx.runner.engineSessions ?? SERVER_SESSIONS;
    this.shares = new KeyShare({
      perKey: Math.max(1, sessions - 1),
      maxWaiting: 16,
      maxWaitMs: limits.maxExecutionSec * 1_000,
    });
  }

  /** Guards `text`, then runs what the guard returned; errors are QueryApiErrors (SQL_REFUSED, QUERY_FAILED, ...). */
  async run(
    text: string,
    params: QueryParams,
    output: (guarded: GuardedSql) => CallerSqlOutput,
    options: CheckOptions & { tighter?: QuerySettings; keyId?: string } = {},
  ): Promise<CallerSqlRun> {
    // The key's share is held from the guard's first statement until the result is sent or cut.
    const release = options.keyId === undefined ? () => undefined : await this.shares.acquire(options.keyId);
    try {
      const guarded = await this.guard.check(text, params, options);
      const chosen = output(guarded);
      const settings = { ...this.settings, ...tightened(this.settings, options.tighter ?? {}) };
      const query = { sql: guarded.sql, params: guarded.params, settings };
      const stream =
        chosen.settings === 'api'
          ? await this.#ctx.runner.stream({ ...query, format: chosen.format }, 'caller')
          : await this.#ctx.runner.streamAs({ ...query, format: chosen.format }, 'caller');
      stream.once('close', release);
      return { guarded, stream };
    } catch (error) {
      release();
      throw error;
    }
  }
}

/** Of the numeric limits asked for, those below the API's own; anything else is ignored. */
function tightened(base: Readonly<QuerySettings>, asked: QuerySettings): QuerySettings {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(asked)) {
    const limit = base[name];
    if (typeof limit === 'number' && typeof value === 'number' && value > 0 && value < limit)
      out[name] = value;
  }
  return out;
}
