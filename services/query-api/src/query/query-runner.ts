/**
 * Runs ClickHouse queries for the routes: typed rows for small answers, and byte streams in any
 * output format for tabular answers. Over a server the bytes stream as ClickHouse writes them
 * (wait_end_of_query = 0); embedded chDB hands over a finished buffer (its connection cannot
 * stream), which is then sent as is. Result isolation on embedded chDB (a failed query's output
 * must never reach another query) is the store's job, not this runner's: see packages/store.
 * Tabular results are held within the API's result memory budget (result-budget.ts).
 */
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@feedpipe/store';
import type { FastifyReply } from 'fastify';
import { QueryApiError } from '../errors.js';
import { FORMAT_SETTINGS, OUTPUT_FORMATS, type OutputFormat } from './formats.js';
import { overBudget, type ResultBudget, type ResultLease } from './result-budget.js';
import type { CachedResponse } from './result-cache.js';
import { type SettingValue, settingsClause } from './settings.js';

export type QueryParams = Record<string, unknown>;

export interface TabularQuery {
  sql: string;
  params?: QueryParams;
  format: OutputFormat;
  /** Query-scoped settings (limits); format settings are added. */
  settings?: Readonly<Record<string, SettingValue>>;
}

export interface QueryRunnerOptions {
  /** Bytes of tabular results in flight are held within this budget. Default: no budget. */
  budget?: ResultBudget | undefined;
  /** The store hands results over whole (embedded chDB), not as a stream. Default false. */
  materialised?: boolean | undefined;
  /**
   * The `readonly` level queries of callers ask for (`Store.userReadonly`): 1, or 2 when the
   * client logs in as a server user whose profile pins readonly = 2 (asking for 1 would be
   * refused there). Default 1.
   */
  readonly?: 1 | 2 | undefined;
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
  if (origin === 'caller' && !NETWORK_ERROR.test(message)) {
    return new QueryApiError(
      'QUERY_FAILED',
      `ClickHouse refused the query: ${message.trim().slice(0, 2_000)}`,
      {
        cause: error,
      },
    );
  }
  return new QueryApiError('STORE_UNAVAILABLE', 'the store failed the query; try again later', {
    cause: error,
    retryable: true,
  });
}

export class QueryRunner {
  readonly #client: ClickHouseClient;
  readonly #baseSettings: Readonly<Record<string, SettingValue>>;
  readonly #budget: ResultBudget | undefined;
  readonly #materialised: boolean;
  /** The `readonly` level the SQL routes and their guard put in a caller query's SETTINGS. */
  readonly readonlyLevel: 1 | 2;

  constructor(client: ClickHouseClient, maxExecutionSec: number, options: QueryRunnerOptions = {}) {
    this.#client = client;
    this.#baseSettings = { max_execution_time: maxExecutionSec };
    this.#budget = options.budget;
    this.#materialised = options.materialised ?? false;
    this.readonlyLevel = options.readonly ?? 1;
  }

  get client(): ClickHouseClient {
    return this.#client;
  }

  async rows<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    try {
      const result = await this.#client.query({
        query: `${sql}\n${settingsClause({ ...this.#baseSettings, ...FORMAT_SETTINGS })}`,
        query_params: params,
        format: 'JSONEachRow',
      });
      return await result.json<T>();
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
    const lease = this.#reserve(query);
    try {
      const stream = await this.#exec(query, origin);
      if (!this.#materialised || lease === undefined) return held(stream, lease);
      const body = await collect(stream, origin);
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
    const stream = await this.stream(query);
    const body = await collect(stream, 'internal');
    stream.destroy();
    return { body, contentType: OUTPUT_FORMATS[query.format].contentType };
  }

  #reserve(query: TabularQuery): ResultLease | undefined {
    if (this.#budget === undefined) return undefined;
    const { limits } = this.#budget;
    if (!this.#materialised) return this.#budget.acquire(limits.streamBytes);
    const limit = query.settings?.max_result_bytes;
    return this.#budget.acquire(typeof limit === 'number' && limit > 0 ? limit : limits.reserveBytes);
  }

  async #exec(query: TabularQuery, origin: 'caller' | 'internal'): Promise<Readable> {
    const settings = { ...this.#baseSettings, ...query.settings, ...FORMAT_SETTINGS };
    try {
      const result = await this.#client.exec({
        query: `${query.sql}\n${settingsClause(settings)}\nFORMAT ${OUTPUT_FORMATS[query.format].clickhouse}`,
        query_params: query.params ?? {},
        // Server only (chDB drops HTTP settings): send blocks as they are produced.
        clickhouse_settings: { wait_end_of_query: 0 },
      });
      return result.stream;
    } catch (error) {
      throw storeError(error, origin);
    }
  }
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
