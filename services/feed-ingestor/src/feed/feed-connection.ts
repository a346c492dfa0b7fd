/**
 * One live-feed WebSocket connection and everything that keeps it alive: the subscriptions it holds
 * (re-sent after every reconnect), stale-connection detection, capped jittered backoff, and the
 * split between transient faults (reconnect) and fatal ones (stop and say why).
 *
 * What a failure means is decided in one place, `classifyFeedFailure` (failure-class.ts):
 * - transient (abnormal close, stale connection, network error, refused upgrade such as 503): retry
 *   with this connection's capped, jittered backoff;
 * - evicted (Error packet 805): wait `evictionBackoffMs` plus a random share of `evictionJitterMs`,
 *   different per connection, so the pool's connections do not all come back at the same moment;
 * - fatal (806, 810, a refused credential, HTTP 400): stop and say why.
 * Every attempt also passes the client id's shared `AttemptBudget`, which keeps the attempts that may
 * count as invalid under the spec's IP-block threshold across all connections; a spent budget means
 * waiting, never giving up.
 */
import { buildSubscriptionRequests, type InstrumentRef, RequestCode } from '@feedpipe/codec';
import { Backoff } from '@feedpipe/service-kit';
import WebSocket from 'ws';
import { AttemptBudget, type AttemptTicket } from './attempt-budget.js';
import { classifyFeedFailure, type FeedFailure } from './failure-class.js';
import { lastMarketStatus } from './market-status-scan.js';

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'backoff' | 'evicted' | 'fatal' | 'stopped';

export interface FeedCredentials {
  clientId: string;
  token: string;
  authType: 1 | 2 | 3;
}

export interface FeedConnectionEvents {
  /** One binary WebSocket message, as received. */
  onFrame(connection: number, frame: Buffer, receivedAtMicros: number): void;
  onState?(connection: number, state: ConnectionState, reason: string): void;
  /** Feed error code from an Error packet (805-809), or an HTTP status of a refused upgrade. */
  onFeedError?(connection: number, code: number): void;
  /** The next attempt is scheduled in `delayMs`; `cause` is the failure's verdict or 'budget'. */
  onRetry?(connection: number, delayMs: number, cause: 'transient' | 'evicted' | 'blocked' | 'budget'): void;
  /** A text message arrived: the feed is binary, so it is counted and skipped. */
  onTextFrame?(connection: number, bytes: number): void;
  /** A Market Status packet passed (its MarketStatus value; the last one of its message). */
  onMarketStatus?(connection: number, status: number): void;
}

export interface FeedConnectionOptions {
  index: number;
  /** Feed URL without query, e.g. ws://127.0.0.1:7075/ */
  url: string;
  credentials: () => FeedCredentials;
  events: FeedConnectionEvents;
  /** No ping or message for this long means the connection is dead. Default 45 s (4 pings at ~10 s). */
  staleTimeoutMs?: number;
  /** Least wait after an 805 eviction before trying again. Default 60 s. */
  evictionBackoffMs?: number;
  /** Up to this much more, at random per connection, on top of `evictionBackoffMs`. Default 30 s. */
  evictionJitterMs?: number;
  /** Random source in [0, 1) of the eviction jitter, for tests. Default Math.random. */
  random?: () => number;
  /** The client id's attempt budget, shared by all its connections. Default: one of its own. */
  budget?: AttemptBudget;
  backoff?: Backoff;
  /** Upgrade timeout. Default 10 s. */
  handshakeTimeoutMs?: number;
}

const ERROR_PACKET_SIZE = 13;
/**
 * An open connection that got no Error packet within this long passed authentication (the server
 * answers a refused credential at once), so its attempt is valid even before the first ping.
 */
const AUTH_GRACE_MS = 1_000;
const ERROR_CODE = 50;

function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

export class FeedConnection {
  readonly index: number;
  readonly trade = new Set<string>();
  readonly ohlc = new Set<string>();
  private socket: WebSocket | undefined;
  private stateValue: ConnectionState = 'idle';
  private reasonValue = '';
  private readonly backoff: Backoff;
  private retryTimer: NodeJS.Timeout | undefined;
  private staleTimer: NodeJS.Timeout | undefined;
  private lastActivity = 0;
  private pausedByPressure = false;
  private readonly budget: AttemptBudget;
  /** The running attempt's budget ticket (settling twice is a no-op). */
  private ticket: AttemptTicket | undefined;
  /** Epoch ms of the last market-data message (not pings, not errors); 0 before the first. */
  lastDataAt = 0;
  /** Epoch ms of the last state change. */
  stateSince = Date.now();
  /** Reconnects after the first successful open. */
  reconnects = 0;
  private everOpened = false;
  private readonly options: FeedConnectionOptions;

  constructor(options: FeedConnectionOptions) {
    this.options = options;
    this.index = options.index;
    this.backoff = options.backoff ?? new Backoff({ initialMs: 500, maxMs: 30_000 });
    this.budget = options.budget ?? new AttemptBudget();
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  get reason(): string {
    return this.reasonValue;
  }

  get subscriptionCount(): number {
    return this.trade.size + this.ohlc.size;
  }

  start(): void {
    if (this.stateValue !== 'idle') return;
    this.connect();
  }

  stop(): void {
    this.setState('stopped', 'stopped by the application');
    clearTimeout(this.retryTimer);
    clearInterval(this.staleTimer);
    const socket = this.socket;
    this.socket = undefined;
    // Stop reading at once: whatever arrives after stop() is not ours to deliver.
    socket?.removeAllListeners('message');
    if (socket && socket.readyState === WebSocket.OPEN) {
      try {
        socket.send(JSON.stringify({ requestCode: RequestCode.Disconnect }));
      } catch {
        // Closing anyway.
      }
      socket.close(1000, 'client stop');
      setTimeout(() => socket.terminate(), 1_000).unref();
    } else {
      socket?.terminate();
    }
  }

  /** A renewed token: close cleanly and reconnect at once with the new credentials. */
  reconnectNow(reason: string): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'fatal') return;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = undefined;
    // Its close is no longer listened to: an attempt not yet proven stays counted (the safe side).
    this.ticket?.failed();
    if (socket) {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.close(1000, reason);
      setTimeout(() => socket.terminate(), 1_000).unref();
    }
    this.backoff.reset();
    this.connect();
  }

  subscribe(kind: 'trade' | 'ohlc', securityIds: readonly string[]): void {
    const set = kind === 'trade' ? this.trade : this.ohlc;
    const added = securityIds.filter((id) => !set.has(id));
    for (const id of added) set.add(id);
    this.sendRequests(kind === 'trade' ? RequestCode.SubscribeTrade : RequestCode.SubscribeOhlc, added);
  }

  unsubscribe(kind: 'trade' | 'ohlc', securityIds: readonly string[]): void {
    const set = kind === 'trade' ? this.trade : this.ohlc;
    const removed = securityIds.filter((id) => set.delete(id));
    this.sendRequests(kind === 'trade' ? RequestCode.UnsubscribeTrade : RequestCode.UnsubscribeOhlc, removed);
  }

  /** Stops reading the socket (TCP backpressure) while the pipeline is full. */
  setPaused(paused: boolean): void {
    this.pausedByPressure = paused;
    if (!this.socket) return;
    if (paused) this.socket.pause();
    else this.socket.resume();
  }

  private sendRequests(code: 15 | 16 | 17 | 18, securityIds: readonly string[]): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || securityIds.length === 0) return;
    const instruments: InstrumentRef[] = securityIds.map((securityId) => ({
      exchangeSegment: 'INX_EQ',
      securityId,
    }));
    // The codec splits into requests of at most 100 instruments; one connection never holds more
    // than 5000, which the pool guarantees, but a subset is always within the limit.
    for (let start = 0; start < instruments.length; start += 5000) {
      for (const request of buildSubscriptionRequests(code, instruments.slice(start, start + 5000)))
        socket.send(request);
    }
  }

  private setState(state: ConnectionState, reason: string): void {
    if (this.stateValue === 'stopped' && state !== 'stopped') return;
    if (state !== this.stateValue) this.stateSince = Date.now();
    this.stateValue = state;
    this.reasonValue = reason;
    this.options.events.onState?.(this.index, state, reason);
  }

  private connect(): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'fatal') return;
    const ticket = this.budget.tryBegin();
    if (!ticket) {
      // The shared budget is spent (or another connection is probing after failures): wait, with a
      // little jitter so the connections waiting for the same slot do not all ask at once.
      const delay = this.budget.delayMs() + Math.round(this.random() * 100);
      this.setState('backoff', 'waiting for the connection-attempt budget');
      this.options.events.onRetry?.(this.index, delay, 'budget');
      this.schedule(delay);
      return;
    }
    const credentials = this.options.credentials();
    const url = new URL(this.options.url);
    url.searchParams.set('clientId', credentials.clientId);
    url.searchParams.set('token', credentials.token);
    url.searchParams.set('authType', String(credentials.authType));
    url.searchParams.set('version', '2');
    this.setState('connecting', this.everOpened ? 'reconnecting' : 'connecting');
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      handshakeTimeout: this.options.handshakeTimeoutMs ?? 10_000,
      maxPayload: 64 * 1024 * 1024,
    });
    this.socket = socket;
    this.ticket = ticket;
    this.attach(socket, ticket);
  }

  /** The listeners of one attempt; `failure` is what went wrong first, judged when the socket closes. */
  private attach(socket: WebSocket, ticket: AttemptTicket): void {
    let opened = false;
    let failure: FeedFailure | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const proven = (): void => {
      clearTimeout(graceTimer);
      ticket.succeeded();
    };

    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      failure = { kind: 'http', status };
      this.options.events.onFeedError?.(this.index, status);
      socket.terminate();
    });
    socket.on('open', () => {
      opened = true;
      this.everOpened = true;
      this.lastActivity = Date.now();
      this.setState('open', 'connected');
      graceTimer = setTimeout(() => {
        if (failure === undefined) proven();
      }, AUTH_GRACE_MS);
      if (this.pausedByPressure) socket.pause();
      this.sendRequests(RequestCode.SubscribeTrade, [...this.trade]);
      this.sendRequests(RequestCode.SubscribeOhlc, [...this.ohlc]);
      this.watchStaleness(socket);
    });
    socket.on('ping', () => {
      this.lastActivity = Date.now();
      if (failure === undefined) proven();
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.lastActivity = Date.now();
      if (!isBinary) {
        // The feed speaks binary only; a text message is not ours to decode. Counted, then skipped.
        this.options.events.onTextFrame?.(this.index, data.byteLength);
        return;
      }
      // Error packets are standalone 13-byte messages followed by the server closing: react here,
      // on the socket's thread, rather than after a round trip through the decode workers.
      if (data.byteLength === ERROR_PACKET_SIZE && data[10] === ERROR_CODE) {
        const code = data.readInt16LE(11);
        failure ??= { kind: 'error-packet', code };
        this.options.events.onFeedError?.(this.index, code);
        const judged = classifyFeedFailure({ kind: 'error-packet', code });
        if (judged.verdict === 'fatal') {
          ticket.failed();
          this.fatal(judged.reason);
        }
      } else {
        this.lastDataAt = this.lastActivity;
        proven();
        if (this.backoff.attempts > 0) this.backoff.reset(); // data flows: the connection is healthy
        const status = lastMarketStatus(data);
        if (status !== undefined) this.options.events.onMarketStatus?.(this.index, status);
      }
      this.options.events.onFrame(this.index, data, nowMicros());
    });
    socket.on('error', () => {
      // 'close' follows and decides what to do.
    });
    socket.on('close', (code: number) => {
      clearInterval(this.staleTimer);
      clearTimeout(graceTimer);
      const judged = classifyFeedFailure(
        failure ?? (opened ? { kind: 'closed', code } : { kind: 'network' }),
      );
      // A no-op for an attempt already proven valid; any other attempt counts as invalid.
      ticket.failed(judged.verdict === 'blocked');
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.stateValue === 'stopped' || this.stateValue === 'fatal') return;
      if (opened) this.reconnects += 1;
      switch (judged.verdict) {
        case 'fatal':
          this.fatal(judged.reason);
          return;
        case 'evicted': {
          const base = this.options.evictionBackoffMs ?? 60_000;
          const delay = base + Math.round(this.random() * (this.options.evictionJitterMs ?? 30_000));
          this.setState(
            'evicted',
            `another session took this connection slot (805); retrying in ${delay} ms`,
          );
          this.options.events.onRetry?.(this.index, delay, 'evicted');
          this.schedule(delay);
          return;
        }
        default: {
          const delay = this.backoff.next();
          this.setState('backoff', judged.reason);
          this.options.events.onRetry?.(this.index, delay, judged.verdict);
          this.schedule(delay);
        }
      }
    });
  }

  private random(): number {
    return (this.options.random ?? Math.random)();
  }

  private fatal(reason: string): void {
    clearTimeout(this.retryTimer);
    this.setState('fatal', reason);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delayMs);
  }

  private watchStaleness(socket: WebSocket): void {
    const timeout = this.options.staleTimeoutMs ?? 45_000;
    clearInterval(this.staleTimer);
    this.staleTimer = setInterval(
      () => {
        if (this.socket === socket && Date.now() - this.lastActivity > timeout && !this.pausedByPressure) {
          this.setState('backoff', `no ping or data for ${timeout} ms`);
          socket.terminate();
        }
      },
      Math.min(1_000, Math.max(50, Math.floor(timeout / 4))),
    );
  }
}
