/**
 * The simulated live-feed WebSocket server (spec: Events, Global stocks live feed).
 *
 * Upgrades pass the UpgradeGate (fault refusal, IP block 429, parameters 400, capacity 503). After
 * the upgrade, the credentials are checked; a failure gets an Error packet alone in its message and a
 * close (1008), and counts as an invalid attempt. Request refusals (malformed JSON, a breach of a
 * limit) close with 1008 and a reason naming the problem; binary requests close with 1003; request 12
 * closes with 1000. Four unanswered pings terminate the TCP connection (the peer is gone, so no close
 * handshake is attempted).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CodecError, FrameBuilder, parseClientRequest } from '@feedpipe/codec';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { SimError } from '../market/errors.js';
import type { MarketModel } from '../market/model.js';
import type { MarketSession } from '../market/types.js';
import type { ConnectParams } from './connect-params.js';
import { type ConnectionInfo, FeedConnection } from './connection.js';
import type { AuthType, FeedAuthResult } from './credentials.js';
import { FeedFaults } from './faults.js';
import { FeedCounters, type InstrumentSent } from './feed-counters.js';
import { FreshTrades } from './fresh-trades.js';
import { FeedGenerator } from './generator.js';
import {
  type FeedServerOptions,
  type LoadOptions,
  type ResolvedFeedOptions,
  resolveFeedOptions,
  resolveLoadOptions,
} from './options.js';
import { applyRequest, type RequestContext } from './requests.js';
import { SubscriptionBook } from './subscription-book.js';
import { type UpgradeCounters, UpgradeGate } from './upgrade-gate.js';

export interface FeedStats {
  connections: number;
  subscribedInstruments: number;
  /** Totals over open and closed connections. */
  packets: number;
  messages: number;
  bytes: number;
  skipped: number;
  generatedTrades: number;
  deferred: number;
  zeroFilled: number;
  marketStatus: number;
  unknownInstruments: number;
  refusedRequests: number;
  upgrades: UpgradeCounters;
  authFailures: number;
  evictions: number;
  pingTimeouts: number;
  ipBlocks: number;
  /** Open connections ended because their token stopped working (expired or renewed): Error 807. */
  tokenExpiries: number;
}

/** Close reasons are limited to 123 bytes by RFC 6455. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

export class FeedServer {
  readonly faults: FeedFaults;
  private readonly options: ResolvedFeedOptions;
  private readonly model: MarketModel;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly book = new SubscriptionBook();
  private readonly counters: FeedCounters;
  private readonly generator: FeedGenerator;
  private readonly gate: UpgradeGate;
  private readonly requestContext: RequestContext;
  private readonly open = new Map<number, FeedConnection>();
  private readonly byClient = new Map<string, FeedConnection[]>();
  private readonly closedTotals = { packets: 0, messages: 0, bytes: 0, skipped: 0 };
  private authFailures = 0;
  private evictions = 0;
  private pingTimeouts = 0;
  private tokenExpiries = 0;
  private nextId = 1;
  private listening = false;
  private paused = false;
  private load: Required<LoadOptions> | undefined;
  private loadBudget = 0;
  private lastLoadTickAt = 0;
  private lastSession: MarketSession;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private tokenTimer: NodeJS.Timeout | undefined;
  private tickTimer: NodeJS.Timeout | undefined;

  constructor(options: FeedServerOptions) {
    this.options = resolveFeedOptions(options);
    this.model = this.options.model;
    this.load = this.options.load;
    this.lastSession = this.model.session();
    this.counters = new FeedCounters(this.model.size);
    const fresh = this.options.freshTrades;
    this.generator = new FeedGenerator(
      this.model,
      this.book,
      this.counters,
      fresh === undefined ? undefined : new FreshTrades(fresh, this.book),
      this.load !== undefined,
    );
    this.gate = new UpgradeGate(this.options.ipBlock, this.options.maxConnections);
    this.requestContext = {
      model: this.model,
      book: this.book,
      counters: this.counters,
      generator: this.generator,
      maxSubscriptions: this.options.maxSubscriptionsPerConnection,
    };
    // Compression off: permessage-deflate costs far more CPU than loopback bandwidth saves, and the
    // real feed's frames are binary packets that barely compress. Pongs are answered by hand so the
    // ignore-pings fault can suppress them.
    this.wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      autoPong: false,
      maxPayload: 256 * 1024,
    });
    this.http = createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end(
        'this is the live-feed WebSocket endpoint: connect with ?clientId=&token=&authType=&version=2\n',
      );
    });
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    this.faults = new FeedFaults({
      seed: this.model.seed,
      connection: (id) => this.connection(id),
      connectionsOf: (clientId) => this.byClient.get(clientId) ?? [],
      endWithError: (c, code) => this.endWithError(c, code),
      abort: (c) => this.abort(c),
      refuseUpgradesUntil: (until, mode) => this.gate.refuseUntil(until, mode),
      clearIpBlocks: () => this.gate.clearIpBlocks(),
    });
  }

  /** Starts listening (and the tick and heartbeat timers). Resolves once the port is bound. */
  async start(): Promise<this> {
    if (this.listening) throw new SimError('ALREADY_STARTED', 'the feed server is already listening');
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => {
        reject(
          new SimError(
            'LISTEN_FAILED',
            `feed server cannot listen on ${this.options.host}:${this.options.port}`,
            { cause: error, retryable: true },
          ),
        );
      };
      this.http.once('error', onError);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off('error', onError);
        resolve();
      });
    });
    this.listening = true;
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.pingIntervalMs);
    if (this.options.tokenCheckIntervalMs > 0) {
      this.tokenTimer = setInterval(() => this.recheckTokens(), this.options.tokenCheckIntervalMs);
    }
    if (this.options.ticks === 'timer') this.startTicking();
    return this;
  }

  get port(): number {
    const address = this.http.address() as AddressInfo | null;
    if (address === null) throw new SimError('NOT_LISTENING', 'the feed server is not listening');
    return address.port;
  }

  /** ws://host:port/ */
  get url(): string {
    return `ws://${this.options.host}:${this.port}/`;
  }

  /** The connection URL of the spec for these credentials. */
  connectUrl(clientId: string, token: string, authType: AuthType = 2): string {
    const query = new URLSearchParams({ clientId, token, authType: String(authType), version: '2' });
    return `${this.url}?${query.toString()}`;
  }

  /**
   * Runs one tick now, as if `elapsedMs` had passed (default: the configured tick). With
   * `ticks: 'manual'` this is the only way data is generated, which makes runs reproducible.
   */
  step(elapsedMs?: number): void {
    const elapsed = elapsedMs ?? (this.load ? this.load.tickIntervalMs : this.options.tickIntervalMs);
    this.tick(elapsed);
  }

  /** Stops generating market data (requests are still served) until `resume()`. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.lastLoadTickAt = performance.now();
  }

  /** Switches to load mode at a new rate, or back to live mode with `undefined`. */
  setLoad(load: LoadOptions | undefined): void {
    this.load = resolveLoadOptions(load);
    this.loadBudget = 0;
    if (this.listening && this.options.ticks === 'timer') this.startTicking();
  }

  listConnections(): ConnectionInfo[] {
    return [...this.open.values()].map((c) => c.info());
  }

  /** Packets queued per instrument so far (all connections, open or closed). */
  sentFor(securityId: number): InstrumentSent {
    const i = this.model.indexOf(securityId);
    if (i < 0) throw new SimError('UNKNOWN_INSTRUMENT', `security id ${securityId} is not in the universe`);
    return this.counters.at(i);
  }

  stats(): FeedStats {
    const totals = { ...this.closedTotals };
    for (const c of this.open.values()) {
      totals.packets += c.counters.packets;
      totals.messages += c.counters.messages;
      totals.bytes += c.counters.bytes;
      totals.skipped += c.counters.skipped;
    }
    const k = this.counters;
    return {
      connections: this.open.size,
      subscribedInstruments: this.book.instrumentCount,
      ...totals,
      generatedTrades: k.generatedTrades,
      deferred: k.deferred,
      zeroFilled: k.zeroFilled,
      marketStatus: k.marketStatus,
      unknownInstruments: k.unknownInstruments,
      refusedRequests: k.refusedRequests,
      upgrades: { ...this.gate.counters },
      authFailures: this.authFailures,
      evictions: this.evictions,
      pingTimeouts: this.pingTimeouts,
      tokenExpiries: this.tokenExpiries,
      ipBlocks: this.gate.ipBlocks,
    };
  }

  /**
   * Stops timers, closes every connection (1001 going away; peers that do not complete the close
   * handshake within `graceMs` are cut off) and the listener.
   */
  async close(graceMs = 1_000): Promise<void> {
    clearInterval(this.heartbeatTimer);
    clearInterval(this.tokenTimer);
    this.tokenTimer = undefined;
    clearTimeout(this.tickTimer);
    clearInterval(this.tickTimer);
    this.heartbeatTimer = undefined;
    this.tickTimer = undefined;
    for (const c of [...this.open.values()]) {
      c.closing = true;
      c.ws.close(1001, 'server shutting down');
      this.detach(c);
    }
    const deadline = Date.now() + Math.max(0, graceMs);
    while (this.wss.clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const client of this.wss.clients) client.terminate();
    if (!this.listening) return;
    this.listening = false;
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private startTicking(): void {
    clearTimeout(this.tickTimer);
    clearInterval(this.tickTimer);
    if (this.load === undefined) {
      const every = this.options.tickIntervalMs;
      this.tickTimer = setInterval(() => this.tick(every), every);
      return;
    }
    // Load mode measures real elapsed time: timers fire late under load and the budget must follow
    // the wall clock, not the nominal interval.
    const every = this.load.tickIntervalMs;
    this.lastLoadTickAt = performance.now();
    const loop = (): void => {
      const now = performance.now();
      const elapsed = now - this.lastLoadTickAt;
      this.lastLoadTickAt = now;
      this.tick(elapsed);
      this.tickTimer = setTimeout(loop, every);
    };
    this.tickTimer = setTimeout(loop, every);
  }

  private tick(elapsedMs: number): void {
    if (this.paused) return;
    // Compared with the feed's own last-seen session, not the model's change report: a REST read of
    // the model may have observed the change first.
    const session = this.model.session();
    if (session !== this.lastSession) {
      this.lastSession = session;
      this.generator.broadcastSession(this.open.values(), session);
    }
    const nowMs = this.model.now();
    const nowSec = Math.floor(nowMs / 1000);
    const load = this.load;
    // Just-subscribed instruments first; what they queue leaves with the rest of the tick.
    if (load !== undefined || session === 'OPEN') this.generator.freshTick(elapsedMs, nowMs);
    if (load !== undefined) {
      // Budget beyond 50 ms worth is dropped: after a stall the rate recovers, it does not burst.
      const cap = load.packetsPerSecond * 0.05 + 1;
      this.loadBudget = Math.min(cap, this.loadBudget + (load.packetsPerSecond * elapsedMs) / 1000);
      if (this.loadBudget >= 1) {
        this.loadBudget -= this.generator.loadTick(Math.floor(this.loadBudget), nowSec);
      } else {
        this.generator.finish();
      }
      return;
    }
    if (session === 'OPEN') {
      this.generator.liveTick(nowSec, Math.min(1, (this.options.tradesPerSecond * elapsedMs) / 1000));
    } else {
      this.generator.finish();
    }
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    const admitted = this.gate.admit(req, socket, this.wss.clients.size);
    if (admitted === undefined) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.gate.counters.accepted++;
      this.onOpen(ws, socket as Socket, admitted.params, admitted.address);
    });
  }

  private onOpen(ws: WebSocket, socket: Socket, params: ConnectParams, address: string): void {
    ws.on('error', () => {});
    let result: FeedAuthResult;
    try {
      result = this.options.authenticate(params.clientId, params.token, params.authType);
    } catch {
      // A throwing credential store must not crash the feed; the client sees a plain failure.
      result = { ok: false, code: 808 };
    }
    if (!result.ok) {
      this.authFailures++;
      this.gate.recordInvalid(address);
      ws.send(new FrameBuilder(32).error(result.code).toBytes(), { binary: true, compress: false });
      ws.close(1008, `error ${result.code}`);
      return;
    }
    this.gate.recordSuccess(address);
    const c = new FeedConnection(
      this.nextId++,
      params.clientId,
      params.authType,
      address,
      Date.now(),
      ws,
      socket,
      this.options.maxPacketsPerMessage,
      this.options.maxBufferedBytes,
      params.token,
    );
    this.open.set(c.id, c);
    ws.on('close', () => this.detach(c));
    ws.on('message', (data, isBinary) => this.onMessage(c, data, isBinary));
    ws.on('pong', () => {
      c.missedPings = 0;
      c.awaitingPong = false;
    });
    ws.on('ping', (data) => {
      if (!c.ignoringPings && !c.stalled && !c.closing) ws.pong(data);
    });
    const siblings = this.byClient.get(c.clientId) ?? [];
    siblings.push(c);
    this.byClient.set(c.clientId, siblings);
    while (siblings.length > this.options.maxConnectionsPerClient) {
      const oldest = siblings[0] as FeedConnection;
      this.evictions++;
      this.endWithError(oldest, 805);
    }
  }

  private onMessage(c: FeedConnection, data: RawData, isBinary: boolean): void {
    if (c.closing || c.stalled) return;
    if (isBinary) {
      this.refuse(c, 1003, 'requests must be JSON text messages');
      return;
    }
    let outcome: ReturnType<typeof applyRequest>;
    try {
      outcome = applyRequest(this.requestContext, c, parseClientRequest(rawText(data)));
    } catch (error) {
      const reason = error instanceof CodecError ? error.message : 'request could not be processed';
      this.refuse(c, 1008, reason);
      return;
    }
    if (outcome.kind === 'refuse') this.refuse(c, 1008, outcome.reason);
    else if (outcome.kind === 'disconnect') {
      c.flush();
      c.closing = true;
      c.ws.close(1000, 'disconnect requested');
      this.detach(c);
    }
  }

  private refuse(c: FeedConnection, code: number, reason: string): void {
    this.counters.refusedRequests++;
    c.flush();
    c.closing = true;
    c.ws.close(code, closeReason(`request refused: ${reason}`));
    this.detach(c);
  }

  private heartbeat(): void {
    for (const c of [...this.open.values()]) {
      if (c.closing || c.stalled) continue;
      if (c.awaitingPong) {
        c.missedPings++;
        if (c.missedPings >= this.options.maxMissedPings) {
          this.pingTimeouts++;
          this.abort(c);
          continue;
        }
      }
      c.awaitingPong = true;
      c.ws.ping();
    }
  }

  /**
   * Tokens last a day and a renewal ends the old one at once, so a connection can outlive its
   * credential: the service then sends Error 807 and closes. A check that now fails for any reason
   * is treated as that expiry; the connect-time codes (806, 808, 809) are for new connections.
   */
  recheckTokens(): void {
    for (const c of [...this.open.values()]) {
      if (c.closing) continue;
      let ok: boolean;
      try {
        ok = this.options.authenticate(c.clientId, c.token, c.authType).ok;
      } catch {
        continue;
      }
      if (ok) continue;
      this.tokenExpiries++;
      this.endWithError(c, 807);
    }
  }

  private connection(id: number): FeedConnection {
    const c = this.open.get(id);
    if (c === undefined) throw new SimError('UNKNOWN_CONNECTION', `no open feed connection with id ${id}`);
    return c;
  }

  /** Error packet alone in its message (after any batched data), then close. */
  private endWithError(c: FeedConnection, code: number): void {
    if (c.closing) return;
    c.sendAlone(new FrameBuilder(32).error(code).toBytes());
    c.counters.packets++;
    c.closing = true;
    c.ws.close(1008, `error ${code}`);
    this.detach(c);
  }

  private abort(c: FeedConnection): void {
    c.closing = true;
    c.ws.terminate();
    this.detach(c);
  }

  private detach(c: FeedConnection): void {
    if (!this.open.delete(c.id)) return;
    this.book.removeConnection(c);
    const siblings = this.byClient.get(c.clientId);
    if (siblings !== undefined) {
      const at = siblings.indexOf(c);
      if (at >= 0) siblings.splice(at, 1);
      if (siblings.length === 0) this.byClient.delete(c.clientId);
    }
    this.closedTotals.packets += c.counters.packets;
    this.closedTotals.messages += c.counters.messages;
    this.closedTotals.bytes += c.counters.bytes;
    this.closedTotals.skipped += c.counters.skipped;
  }
}

/** Creates and starts a feed server. */
export async function startFeedServer(options: FeedServerOptions): Promise<FeedServer> {
  return new FeedServer(options).start();
}
