/**
 * A live-feed server written from the service's specification alone (service-interface.md, "Global
 * stocks live feed"), sharing nothing with the simulator or the codec, so the ingestor is judged by
 * bytes another implementation of the spec would send. It streams the way issue #35's server did:
 *
 * - every Subscribe Trade request (15) is answered at once, in one message, with each instrument's
 *   snapshot in the spec's order (rule 1: Trade, Previous Close, Circuit Limit, 52-Week);
 * - from the next tick on, every instrument subscribed on an open connection gets live trades: the
 *   first request's 100 instruments of each connection hundreds a second each (`hotTradesPerTick`),
 *   the others `tradesPerTick` a tick together, round their list;
 * - each trade carries its instrument's sequence number (1, 2, 3, ...) as its cumulative volume, so
 *   a missing, doubled or reordered trade shows in what is read back. A snapshot's trade is the
 *   instrument's last trade (the same volume and trade time); only an instrument's first snapshot
 *   is a new trade (sequence 1);
 * - `drop` ends a connection abnormally (rule 6): it stops streaming to it, lets what it has written
 *   reach the socket, then destroys the TCP socket without a close frame (the client sees 1006).
 *
 * Loopback only, one timer for every connection, every loop bounded by the tick's budget.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/** Wire layout (spec, "Binary packets"): 11-byte header, little-endian, packed. */
const SEGMENT_INX_EQ = 14;
const CODE_TRADE = 1;
const CODE_PREV_CLOSE = 32;
const CODE_CIRCUIT = 33;
const CODE_WEEK52 = 36;
const TRADE_BYTES = 27;
const PREV_CLOSE_BYTES = 15;
const CIRCUIT_BYTES = 19;
const WEEK52_BYTES = 19;
const SNAPSHOT_BYTES = TRADE_BYTES + PREV_CLOSE_BYTES + CIRCUIT_BYTES + WEEK52_BYTES;
const SUBSCRIBE_TRADE = 15;
const DISCONNECT = 12;
/** Spec limit: instruments per request. */
const MAX_PER_REQUEST = 100;
/** How long a drop waits at most for what was written to leave for the socket. */
const DROP_FLUSH_LIMIT_MS = 5_000;

export interface SpecFeedServerOptions {
  /** Instruments of each connection that trade busily: its first ones subscribed. Default 100. */
  hotInstruments?: number;
  /** Trades per tick of each busy instrument. Default 2 (400 a second at 5 ms ticks). */
  hotTradesPerTick?: number;
  /** Trades per tick of each connection's other instruments together, round their list. Default 20. */
  tradesPerTick?: number;
  /** Tick interval. Default 5 ms. */
  tickMs?: number;
  /** One packet per WebSocket message instead of one message per answer or tick. Default false. */
  packetPerMessage?: boolean;
  /**
   * Reference packets once per instrument (rule 1: "sent once, not with every update"): a
   * re-subscription answers with Circuit Limit and 52-Week packets zero-filled down to the length
   * byte, as "no data yet" (rule 4), code kept. Default false.
   */
  referencesOnce?: boolean;
  /** An answer carries each instrument's first new trade after its snapshot, in the same message. Default false. */
  tradeWithSnapshot?: boolean;
}

/** One instrument's feed: its sequence (= cumulative volume) and last trade. */
interface Instrument {
  id: number;
  seq: number;
  ltt: number;
  ltp: number;
}

interface Connection {
  readonly id: number;
  readonly socket: WebSocket;
  /** Subscribed instruments, in subscription order. */
  readonly subscribed: Instrument[];
  readonly ids: Set<number>;
  /** Streaming to it (false once a drop or a close began). */
  live: boolean;
  /** Where the next tick's trades start in `subscribed`. */
  cursor: number;
}

export interface SpecFeedStats {
  connections: number;
  /** Binary messages written, on every connection. */
  messages: number;
  /** Trades sent: new ones (live trades and first snapshots); repeated snapshot trades not counted. */
  trades: number;
  /** Snapshots sent (one per instrument per subscription answered). */
  snapshots: number;
  /** Subscribe requests answered. */
  requests: number;
  drops: number;
}

export interface SpecFeedServer {
  readonly url: string;
  /** Each instrument's last sequence sent: the trades 1..seq were all sent on open connections. */
  lastSequence(id: number): number;
  /** Snapshots sent of the instrument. */
  snapshotsOf(id: number): number;
  stats(): SpecFeedStats;
  /** Open connections, oldest first. */
  openConnections(): number;
  /** Instruments subscribed on open connections. */
  subscribed(): number;
  /** Ends the `index`-th open connection (oldest first) abnormally; resolves once the socket is gone. */
  drop(index: number): Promise<void>;
  /** Stops streaming (subscriptions answered still get their snapshot). */
  pause(): void;
  close(): Promise<void>;
}

/** Circuit Limit and 52-Week packets are both this long. */
const REFERENCE_BYTES = 19;

function header(out: Buffer, at: number, id: number, length: number, code: number): void {
  out.writeUInt8(SEGMENT_INX_EQ, at);
  out.writeInt32LE(id, at + 1);
  out.writeInt32LE(id, at + 5);
  out.writeUInt8(length, at + 9);
  out.writeUInt8(code, at + 10);
}

function writeTrade(out: Buffer, at: number, instrument: Instrument): void {
  header(out, at, instrument.id, TRADE_BYTES, CODE_TRADE);
  out.writeFloatLE(instrument.ltp, at + 11);
  out.writeInt32LE(instrument.seq, at + 15);
  out.writeInt32LE(instrument.ltt, at + 19);
  out.writeInt32LE(instrument.ltt, at + 23);
}

/** The next trade of the instrument (a new sequence number). */
function advance(instrument: Instrument): void {
  instrument.seq += 1;
  instrument.ltt = Math.floor(Date.now() / 1000);
  instrument.ltp = 100 + (instrument.seq % 50) / 4;
}

/** A reference packet zero-filled but for its code: length byte, ids and values 0. */
function writeZeroFilled(out: Buffer, at: number, code: number, size: number): void {
  out.fill(0, at, at + size);
  out.writeUInt8(code, at + 10);
}

function writeSnapshot(out: Buffer, at: number, instrument: Instrument, zeroReferences = false): void {
  writeTrade(out, at, instrument);
  let offset = at + TRADE_BYTES;
  header(out, offset, instrument.id, PREV_CLOSE_BYTES, CODE_PREV_CLOSE);
  out.writeFloatLE(99.5, offset + 11);
  offset += PREV_CLOSE_BYTES;
  if (zeroReferences) {
    writeZeroFilled(out, offset, CODE_CIRCUIT, CIRCUIT_BYTES);
    writeZeroFilled(out, offset + CIRCUIT_BYTES, CODE_WEEK52, WEEK52_BYTES);
    return;
  }
  header(out, offset, instrument.id, CIRCUIT_BYTES, CODE_CIRCUIT);
  out.writeFloatLE(120, offset + 11);
  out.writeFloatLE(80, offset + 15);
  offset += CIRCUIT_BYTES;
  header(out, offset, instrument.id, WEEK52_BYTES, CODE_WEEK52);
  out.writeFloatLE(130, offset + 11);
  out.writeFloatLE(70, offset + 15);
}

/** The security ids of a Subscribe Trade request, or undefined for anything else. */
function subscribeIds(text: string): number[] | undefined {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return undefined;
  }
  const body = request as { requestCode?: unknown; instrumentList?: unknown };
  if (body.requestCode !== SUBSCRIBE_TRADE || !Array.isArray(body.instrumentList)) return undefined;
  return body.instrumentList
    .slice(0, MAX_PER_REQUEST)
    .map((entry) => Number((entry as { securityId?: unknown }).securityId))
    .filter((id) => Number.isInteger(id) && id > 0);
}

export async function startSpecFeedServer(options: SpecFeedServerOptions = {}): Promise<SpecFeedServer> {
  const tradesPerTick = options.tradesPerTick ?? 20;
  const hotInstruments = options.hotInstruments ?? 100;
  const hotTradesPerTick = options.hotTradesPerTick ?? 2;
  const instruments = new Map<number, Instrument>();
  const snapshots = new Map<number, number>();
  const connections: Connection[] = [];
  const totals: SpecFeedStats = {
    connections: 0,
    messages: 0,
    trades: 0,
    snapshots: 0,
    requests: 0,
    drops: 0,
  };
  let streaming = true;
  let nextId = 0;

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', resolve));

  const send = (connection: Connection, bytes: Buffer): void => {
    if (!options.packetPerMessage) {
      connection.socket.send(bytes, { binary: true });
      totals.messages += 1;
      return;
    }
    // Every packet its own message, walked by its length byte (bounded by the buffer's length).
    for (let at = 0; at < bytes.length; ) {
      // A zero-filled reference packet has no length byte: its code says its size.
      const length = (bytes[at + 9] as number) || REFERENCE_BYTES;
      connection.socket.send(bytes.subarray(at, at + length), { binary: true });
      totals.messages += 1;
      at += length;
    }
  };

  const answer = (connection: Connection, ids: readonly number[]): void => {
    const fresh = ids.filter((id) => !connection.ids.has(id));
    if (fresh.length === 0) return;
    const withTrade = options.tradeWithSnapshot === true;
    const out = Buffer.alloc(fresh.length * (SNAPSHOT_BYTES + (withTrade ? TRADE_BYTES : 0)));
    fresh.forEach((id, i) => {
      let instrument = instruments.get(id);
      if (!instrument) {
        instrument = { id, seq: 0, ltt: 0, ltp: 0 };
        instruments.set(id, instrument);
      }
      // The snapshot's trade is the last one; an instrument that never traded trades now.
      if (instrument.seq === 0) {
        advance(instrument);
        totals.trades += 1;
      }
      const repeated = (snapshots.get(id) ?? 0) > 0;
      writeSnapshot(out, i * SNAPSHOT_BYTES, instrument, repeated && options.referencesOnce === true);
      snapshots.set(id, (snapshots.get(id) ?? 0) + 1);
      connection.ids.add(id);
      connection.subscribed.push(instrument);
    });
    totals.snapshots += fresh.length;
    totals.requests += 1;
    if (withTrade) {
      fresh.forEach((id, i) => {
        const instrument = instruments.get(id) as Instrument;
        advance(instrument);
        totals.trades += 1;
        writeTrade(out, fresh.length * SNAPSHOT_BYTES + i * TRADE_BYTES, instrument);
      });
    }
    send(connection, out);
  };

  wss.on('connection', (socket, request) => {
    const url = new URL(request.url ?? '/', 'ws://127.0.0.1');
    if (url.searchParams.get('version') !== '2' || !url.searchParams.get('clientId')) {
      socket.close(1008, 'bad query');
      return;
    }
    const connection: Connection = {
      id: nextId++,
      socket,
      subscribed: [],
      ids: new Set(),
      live: true,
      cursor: 0,
    };
    connections.push(connection);
    totals.connections += 1;
    socket.on('message', (data, isBinary) => {
      if (isBinary || !connection.live) return;
      const text = data.toString();
      if (text.includes(`"requestCode":${DISCONNECT}`)) {
        connection.live = false;
        socket.close(1000, 'disconnect');
        return;
      }
      const ids = subscribeIds(text);
      if (ids) answer(connection, ids);
    });
    socket.on('close', () => {
      connection.live = false;
      const at = connections.indexOf(connection);
      if (at >= 0) connections.splice(at, 1);
    });
    socket.on('error', () => undefined);
  });

  const tick = (): void => {
    if (!streaming) return;
    for (const connection of connections) {
      const n = connection.subscribed.length;
      if (!connection.live || n === 0 || connection.socket.readyState !== WebSocket.OPEN) continue;
      // The first request's instruments are the busy ones: each gets `hotTradesPerTick` a tick from
      // the moment it is subscribed; the rest share `tradesPerTick`, round their list.
      const hot = Math.min(n, hotInstruments);
      const cold = n - hot;
      const coldCount = cold === 0 ? 0 : tradesPerTick;
      const count = hot * hotTradesPerTick + coldCount;
      const out = Buffer.alloc(count * TRADE_BYTES);
      let at = 0;
      for (let round = 0; round < hotTradesPerTick; round++) {
        for (let i = 0; i < hot; i++) {
          const instrument = connection.subscribed[i] as Instrument;
          advance(instrument);
          writeTrade(out, at, instrument);
          at += TRADE_BYTES;
        }
      }
      for (let i = 0; i < coldCount; i++) {
        const instrument = connection.subscribed[hot + ((connection.cursor + i) % cold)] as Instrument;
        advance(instrument);
        writeTrade(out, at, instrument);
        at += TRADE_BYTES;
      }
      if (cold > 0) connection.cursor = (connection.cursor + coldCount) % cold;
      totals.trades += count;
      send(connection, out);
    }
  };
  const timer = setInterval(tick, options.tickMs ?? 5);

  const address = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${address.port}/`,
    lastSequence: (id) => instruments.get(id)?.seq ?? 0,
    snapshotsOf: (id) => snapshots.get(id) ?? 0,
    stats: () => ({ ...totals }),
    openConnections: () => connections.filter((c) => c.live).length,
    subscribed: () => connections.filter((c) => c.live).reduce((sum, c) => sum + c.ids.size, 0),
    async drop(index) {
      const connection = connections.filter((c) => c.live)[index];
      if (!connection) throw new Error(`no open connection ${index} to drop`);
      connection.live = false;
      // What was written goes to the socket first: every trade counted as sent reaches the client.
      const deadline = Date.now() + DROP_FLUSH_LIMIT_MS;
      while (connection.socket.bufferedAmount > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 5));
      const closed = new Promise<void>((resolve) => connection.socket.once('close', () => resolve()));
      // terminate() destroys the TCP socket: no close frame, the client sees an abnormal close.
      connection.socket.terminate();
      totals.drops += 1;
      await closed;
    },
    pause: () => {
      streaming = false;
    },
    async close() {
      clearInterval(timer);
      for (const connection of [...connections]) connection.socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
