/**
 * Runs ClickHouse queries for the routes, through one lane of the store's port: typed rows for
 * small answers, and byte streams in any output format for tabular answers. How the bytes arrive
 * (as the engine writes them, or whole once finished) is the store's business; the runner only
 * reads `lane.streamsResults` to know what its result memory budget (result-budget.ts) must
 * count. Result isolation on embedded chDB is the store's job too: see packages/store.
 */
import { Readable } from 'node:stream';
import type {
  ExclusiveLane,
  QueryParams,
  QuerySettings,
  SettingValue,
  StoreLane,
  StreamFormat,
} from '@feedpipe/store';
import type { FastifyReply } from 'fastify';
import { QueryApiError } from '../errors.js';
import { callerMessage, ScrubbedEngineError } from './engine-errors.js';
import { FORMAT_SETTINGS, OUTPUT_FORMATS, type OutputFormat, timeSettingsOf } from './formats.js';
import { overBudget, type ResultBudget, type ResultLease } from './result-budget.js';
import type { CachedResponse } from './result-cache.js';
import { describeSql, ISO_TIME_SETTINGS, type ResultColumn, utcInstantsSql } from './time-columns.js';

export type { QueryParams };

export interface TabularQuery {
  sql: string;
  params?: QueryParams;
  format: OutputFormat;
  /** Query-scoped settings (limits); format settings are added. */
  settings?: QuerySettings;
}

/**
 * A query in any format the store can write (the ClickHouse-protocol endpoint), with the engine's
 * own output settings: no FORMAT_SETTINGS, so the bytes are what a ClickHouse server would send.
 */
export interface EngineQuery {
  sql: string;
  params?: QueryParams;
  format: StreamFormat;
  settings?: QuerySettings;
}

export interface QueryRunnerOptions {
  /** Bytes of tabular results in flight are held within this budget. Default: no budget. */
  budget?: ResultBudget | undefined;
  /**
   * Where results arrive whole: turns on the engine, one per session of the lane, taken in arrival
   * order before the budget reservation (the store's ExclusiveLane), so queries still queued for
   * the engine hold no reservation; only running statements and results being sent do. Without
   * them a queued bar query (64 MiB) held budget that a `/v1/sql` query (512 MiB) waited for
   * although only two statements ran (bench:api mixed: /v1/sql 6.6 s on average). Default: none.
   */
  turns?: ExclusiveLane | undefined;
  /** Called once per query sent to the store (the metric of how many requests reach it). */
  onQuery?: (() => void) | undefined;
}

const NETWORK_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|EPIPE|closed/i;

/** The store's own refusals (a full or slow queue), by their stable codes. */
function storeBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'STORE_BUSY' || code === 'STORE_CLOSED';
}

/**
 * `caller` = the SQL came from the caller (POST /v1/sql): a ClickHouse refusal is their 400.
 * `internal` = our own query failed: the store is in trouble, 503.
 */
export function storeError(error: unknown, origin: 'caller' | 'internal'): QueryApiError {
  if (storeBusy(error)) {
    return new QueryApiError('OVERLOADED', 'the store has too many queries waiting; retry shortly', {
      cause: error,
      retryable: true,
      retryAfterSec: 5,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  // The engine's text never reaches a caller or a log unscrubbed (engine-errors.ts).
  const cause = new ScrubbedEngineError(error, origin);
  if (origin === 'caller' && !NETWORK_ERROR.test(message)) {
    return new QueryApiError('QUERY_FAILED', callerMessage(cause.failure), { cause });
  }
  return new QueryApiError('STORE_UNAVAILABLE', 'the store failed the query; try again later', {
    cause,
    retryable: true,
  });
}

export class QueryRunner {
  readonly #lane: StoreLane;
  readonly #baseSettings: Readonly<Record<string, SettingValue>>;
  readonly #budget: ResultBudget | undefined;
  readonly #turns: ExclusiveLane | undefined;
  readonly #onQuery: () => void;
  /** Results arrive whole (embedded chDB), not as a stream: the budget counts them whole. */
  readonly #materialised: boolean;
  /**
   * The `readonly` level the SQL routes and their guard put in a caller query's SETTINGS: the
   * lane's (`StoreLane.readonlyLevel`: 2 where its server login pins readonly = 2).
   */
  readonly readonlyLevel: 1 | 2;
  /** Statements the lane's engine runs at once (embedded chDB's sessions); undefined on a server. */
  readonly engineSessions: number | undefined;

  constructor(lane: StoreLane, maxExecutionSec: number, options: QueryRunnerOptions = {}) {
    this.#lane = lane;
    this.#baseSettings = { max_execution_time: maxExecutionSec };
    this.#budget = options.budget;
    this.#turns = options.turns;
    this.#onQuery = options.onQuery ?? (() => undefined);
    this.#materialised = !lane.streamsResults;
    this.readonlyLevel = lane.readonlyLevel;
    this.engineSessions = lane.turns?.sessions;
  }

  /** Parsed rows (for the JSON answers built from them too): instants as ISO 8601 text with `Z`. */
  async rows<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    this.#onQuery();
    try {
      return await this.#lane.rows<T>(sql, params, {
        ...this.#baseSettings,
        ...FORMAT_SETTINGS,
        ...ISO_TIME_SETTINGS,
      });
    } catch (error) {
      throw storeError(error, 'internal');
    }
  }

  /**
   * The result as a byte stream; errors before the first byte are thrown as QueryApiError, and
   * OVERLOADED (503) when the result memory budget cannot hold it. The bytes stay counted in the
   * budget until the stream is closed (sent, failed or cut).
   */
  async stream(query: TabularQuery, origin: 'caller' | 'internal' = 'internal'): Promise<Readable> {
    const settings = { ...query.settings, ...FORMAT_SETTINGS, ...timeSettingsOf(query.format) };
    const params = query.params ?? {};
    // Arrow keeps instants as UTC timestamps: the statement's DateTime columns are cast (time-columns.ts).
    const sql =
      OUTPUT_FORMATS[query.format].times === 'utc-timestamps'
        ? utcInstantsSql(query.sql, await this.#columns(query.sql, params, settings, origin))
        : query.sql;
    return this.streamAs(
      { sql, format: OUTPUT_FORMATS[query.format].clickhouse, settings, ...(query.params ? { params } : {}) },
      origin,
    );
  }

  /** As `stream`, in any of the store's formats, with only the settings given (see EngineQuery). */
  async streamAs(query: EngineQuery, origin: 'caller' | 'internal' = 'internal'): Promise<Readable> {
    const turns = this.#turns;
    if (!this.#materialised || turns === undefined) return this.#leased(query, origin);
    // A whole result exists once the statement has finished, so the turn ends with #leased.
    try {
      return await turns.run(() => this.#leased(query, origin));
    } catch (error) {
      // What #leased throws is already ours; anything else is the line's refusal (STORE_BUSY).
      throw error instanceof QueryApiError ? error : storeError(error, origin);
    }
  }

  /** Reserves in the budget, runs, and holds the result's bytes until its stream is closed. */
  async #leased(query: EngineQuery, origin: 'caller' | 'internal'): Promise<Readable> {
    const lease = await this.#reserve(query.settings);
    try {
      const stream = await this.#exec(query, origin);
      if (!this.#materialised || lease === undefined) return held(stream, lease);
      const body = await collect(stream, origin);
      overResultBytes(body.length, query.settings?.max_result_bytes, origin);
      if (!lease.resize(body.length))
        throw overBudget(this.#budget?.usedBytes ?? 0, this.#budget?.limits.totalBytes ?? 0);
      return held(Readable.from([body], { objectMode: false }), lease);
    } catch (error) {
      lease?.release();
      throw error;
    }
  }

  /** The whole result; held in the budget while it is produced (the result cache bounds it after). */
  async buffer(query: TabularQuery): Promise<CachedResponse> {
    const body = await whole(await this.stream(query));
    return { body, contentType: OUTPUT_FORMATS[query.format].contentType };
  }

  /** The whole result of `query` (in the store's format, with its settings only), as `buffer` holds it. */
  async bufferAs(query: EngineQuery): Promise<Buffer> {
    return whole(await this.streamAs(query));
  }

  async #reserve(settings: QuerySettings | undefined): Promise<ResultLease | undefined> {
    if (this.#budget === undefined) return undefined;
    const { limits } = this.#budget;
    if (!this.#materialised) return this.#budget.acquire(limits.streamBytes);
    const limit = settings?.max_result_bytes;
    return this.#budget.acquire(typeof limit === 'number' && limit > 0 ? limit : limits.reserveBytes);
  }

  async #exec(query: EngineQuery, origin: 'caller' | 'internal'): Promise<Readable> {
    const settings = { ...this.#baseSettings, ...query.settings };
    this.#onQuery();
    try {
      return await this.#lane.stream(query.sql, query.params ?? {}, query.format, settings);
    } catch (error) {
      throw storeError(error, origin);
    }
  }

  /** The result columns of a statement (DESCRIBE analyses it, under the same settings, reads nothing). */
  async #columns(
    sql: string,
    params: QueryParams,
    settings: QuerySettings,
    origin: 'caller' | 'internal',
  ): Promise<ResultColumn[]> {
    this.#onQuery();
    try {
      return await this.#lane.rows<ResultColumn>(describeSql(sql), params, {
        ...this.#baseSettings,
        ...settings,
      });
    } catch (error) {
      throw storeError(error, origin);
    }
  }
}

/**
 * `max_result_bytes` as the bytes actually answered: the engine does not count constant columns
 * (a 68 MB answer of one constant passed a 10 MB limit), so a whole result is measured here too.
 */
function overResultBytes(size: number, limit: unknown, origin: 'caller' | 'internal'): void {
  if (typeof limit !== 'number' || limit <= 0 || size <= limit) return;
  throw storeError(
    new Error(`Code: 396. DB::Exception: the result has ${size} bytes, over max_result_bytes ${limit}`),
    origin,
  );
}

async function collect(stream: Readable, origin: 'caller' | 'internal'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream)
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  } catch (error) {
    throw storeError(error, origin);
  }
  return Buffer.concat(chunks);
}

/** A result stream read to its end and closed (which gives its budget lease back). */
async function whole(stream: Readable): Promise<Buffer> {
  try {
    return await collect(stream, 'internal');
  } finally {
    stream.destroy();
  }
}

/** Gives the lease back once the stream is closed, whichever way that happens. */
function held(stream: Readable, lease: ResultLease | undefined): Readable {
  if (lease === undefined) return stream;
  if (stream.destroyed) lease.release();
  else stream.once('close', () => lease.release());
  return stream;
}

/** Sends a tabular result with its content type and a file name a browser or notebook can use. */
export function sendTabular(
  reply: FastifyReply,
  format: OutputFormat,
  body: Readable | Buffer,
  baseName: string,
): FastifyReply {
  const spec = OUTPUT_FORMATS[format];
  reply.header('content-type', spec.contentType);
  reply.header('content-disposition', `inline; filename="${baseName}.${spec.extension}"`);
  return reply.send(body);
}
