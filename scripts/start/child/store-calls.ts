/**
 * The store of `npm start` offered to a child process, and the child's Store over it. Embedded
 * chDB binds its data directory to one process, so a service moved into a child process of its
 * own (the trading gateway) reaches the one store through its parent: each operation of the port
 * (packages/store's port.ts) is one call on the IPC channel (calls.ts), run by the parent on the
 * same lane it would have run on in-process. The parent's lanes keep their limits (turns, queues,
 * waits), so a child adds no way around them.
 *
 * A stream crosses as one buffer (embedded chDB materialises every result before its first byte
 * anyway), bounded by MAX_STREAM_BYTES so a large result cannot balloon either process.
 */
import { Readable } from 'node:stream';
import {
  type QueryParams,
  type QuerySettings,
  type Store,
  StoreError,
  type StoreLane,
  type StoreLoad,
  type StreamFormat,
} from '@feedpipe/store';
import type { CallChannel } from './calls.js';

const MAX_STREAM_BYTES = 64 * 1024 * 1024;
/** How often the child refreshes its copy of the lanes' load (`Store.load()` is synchronous). */
const LOAD_REFRESH_MS = 5_000;

type LaneName = StoreLane['name'];

/** What a child needs to know of the store to present the same Store (sent once, at start). */
export interface StoreFacts {
  mode: Store['mode'];
  location: string;
  streamsResults: boolean;
  userReadonly: 1 | 2;
  lanes: Record<LaneName, Pick<StoreLane, 'streamsResults' | 'turns' | 'readonlyLevel'>>;
  load: StoreLoad;
}

export function storeFacts(store: Store): StoreFacts {
  const lane = (l: StoreLane) => ({
    streamsResults: l.streamsResults,
    turns: l.turns,
    readonlyLevel: l.readonlyLevel,
  });
  return {
    mode: store.mode,
    location: store.location,
    streamsResults: store.streamsResults,
    userReadonly: store.userReadonly,
    lanes: { internal: lane(store.internal), user: lane(store.user) },
    load: store.load(),
  };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_STREAM_BYTES) {
      stream.destroy();
      throw new StoreError(
        'STORE_QUERY_INVALID',
        `a result above ${MAX_STREAM_BYTES} bytes does not cross to a child process; ask for less`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Serves the store's operations to the child at the other end of `channel` (parent side). */
export function offerStore(channel: CallChannel, store: Store): void {
  const lane = (name: LaneName): StoreLane => (name === 'user' ? store.user : store.internal);
  channel.handle(
    'store.rows',
    (name: LaneName, sql: string, params?: QueryParams, settings?: QuerySettings) =>
      lane(name).rows(sql, params, settings),
  );
  channel.handle('store.command', (name: LaneName, sql: string, params?: QueryParams) =>
    lane(name).command(sql, params),
  );
  channel.handle(
    'store.insertRows',
    (name: LaneName, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]) =>
      lane(name).insertRows(table, columns, rows),
  );
  channel.handle(
    'store.insertCsv',
    (name: LaneName, table: string, columns: readonly string[], csv: Uint8Array) =>
      lane(name).insertCsv(table, columns, Buffer.from(csv.buffer, csv.byteOffset, csv.byteLength)),
  );
  channel.handle(
    'store.stream',
    async (
      name: LaneName,
      sql: string,
      params: QueryParams,
      format: StreamFormat,
      settings?: QuerySettings,
    ) => collect(await lane(name).stream(sql, params, format, settings)),
  );
  channel.handle('store.load', () => store.load());
}

class RemoteLane implements StoreLane {
  readonly name: LaneName;
  readonly streamsResults: boolean;
  readonly turns: StoreLane['turns'];
  readonly readonlyLevel: 1 | 2;
  readonly #channel: CallChannel;
  readonly #isClosed: () => boolean;

  constructor(name: LaneName, facts: StoreFacts, channel: CallChannel, isClosed: () => boolean) {
    this.name = name;
    const lane = facts.lanes[name];
    this.streamsResults = lane.streamsResults;
    this.turns = lane.turns;
    this.readonlyLevel = lane.readonlyLevel;
    this.#channel = channel;
    this.#isClosed = isClosed;
  }

  #call<T>(operation: string, ...args: unknown[]): Promise<T> {
    if (this.#isClosed()) return Promise.reject(new StoreError('STORE_CLOSED', 'the store was closed'));
    return this.#channel.call<T>(`store.${operation}`, this.name, ...args);
  }

  rows<T>(sql: string, params?: QueryParams, settings?: QuerySettings): Promise<T[]> {
    return this.#call<T[]>('rows', sql, params, settings);
  }

  async stream(
    sql: string,
    params: QueryParams,
    format: StreamFormat,
    settings?: QuerySettings,
  ): Promise<Readable> {
    const bytes = await this.#call<Uint8Array>('stream', sql, params, format, settings);
    return Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
  }

  command(sql: string, params?: QueryParams): Promise<void> {
    return this.#call<void>('command', sql, params);
  }

  insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
  ): Promise<void> {
    return this.#call<void>('insertRows', table, columns, rows);
  }

  insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void> {
    return this.#call<void>('insertCsv', table, columns, csv);
  }
}

/** The child's Store: every operation runs in the parent (child side). */
export function remoteStore(channel: CallChannel, facts: StoreFacts): Store {
  let closed = false;
  let load = facts.load;
  const refresh = setInterval(() => {
    channel.call<StoreLoad>('store.load').then(
      (latest) => {
        load = latest;
      },
      () => undefined,
    );
  }, LOAD_REFRESH_MS);
  refresh.unref();
  const isClosed = () => closed;
  return {
    internal: new RemoteLane('internal', facts, channel, isClosed),
    user: new RemoteLane('user', facts, channel, isClosed),
    mode: facts.mode,
    streamsResults: facts.streamsResults,
    location: facts.location,
    userReadonly: facts.userReadonly,
    load: () => load,
    // The parent owns the store and closes it; the child only stops using it.
    close: async () => {
      closed = true;
      clearInterval(refresh);
    },
  };
}
