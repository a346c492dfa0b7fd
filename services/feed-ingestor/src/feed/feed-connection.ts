/**
 * One live-feed WebSocket connection and everything that keeps it alive: the subscriptions it holds
 * (re-sent after every reconnect), stale-connection detection, capped jittered backoff, and the
 * split between transient faults (reconnect) and fatal ones (stop and say why).
 *
 * Outcomes by cause (spec: Events, Global stocks live feed):
 * - abnormal close (1006, EOF), stale connection, network error: reconnect with backoff;
 * - Error packet 805 (a 6th connection evicted this one): another session took the slot; report
 *   and back off for `evictionBackoffMs` instead of fighting for it;
 * - Error packets 806-809 and an HTTP 400 upgrade: fatal for the credential, no more attempts;
 * - other refused upgrades (e.g. a temporarily blocked address) count as invalid attempts; after
 *   `maxInvalidAttempts` in a row the connection gives up, so we never trip the server's IP block.
 */
import { buildSubscriptionRequests, type InstrumentRef, RequestCode } from '@feedpipe/codec';
import WebSocket from 'ws';
import { Backoff } from '../backoff.js';

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
}

export interface FeedConnectionOptions {
  index: number;
  /** Feed URL without query, e.g. ws://127.0.0.1:7075/ */
  url: string;
  credentials: () => FeedCredentials;
  events: FeedConnectionEvents;
  /** No ping or message for this long means the connection is dead. Default 45 s (4 pings at ~10 s). */
  staleTimeoutMs?: number;
  /** Wait after an 805 eviction before trying again. Default 60 s. */
  evictionBackoffMs?: number;
  /** Refused attempts in a row before giving up. Default 10 (the server blocks after more). */
  maxInvalidAttempts?: number;
  backoff?: Backoff;
  /** Upgrade timeout. Default 10 s. */
  handshakeTimeoutMs?: number;
}

const FATAL_FEED_CODES = new Set([806, 807, 808, 809]);
const ERROR_PACKET_SIZE = 13;
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
  private invalidAttempts = 0;
  private pausedByPressure = false;
  /** Reconnects after the first successful open. */
  reconnects = 0;
  private everOpened = false;
  private readonly options: FeedConnectionOptions;

  constructor(options: FeedConnectionOptions) {
    this.options = options;
    this.index = options.index;
    this.backoff = options.backoff ?? new Backoff({ initialMs: 500, maxMs: 30_000 });
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
    this.stateValue = state;
    this.reasonValue = reason;
    this.options.events.onState?.(this.index, state, reason);
  }

  private connect(): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'fatal') return;
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
    let opened = false;
    let fatalCode = 0;

    socket.on('upgrade', () => undefined);
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      this.options.events.onFeedError?.(this.index, status);
      if (status === 400) {
        fatalCode = 400;
        this.fatal('the server rejected the connection parameters (HTTP 400)');
      } else {
        this.invalidAttempts += 1;
      }
      socket.terminate();
    });
    socket.on('open', () => {
      opened = true;
      this.everOpened = true;
      this.lastActivity = Date.now();
      this.setState('open', 'connected');
      if (this.pausedByPressure) socket.pause();
      this.sendRequests(RequestCode.SubscribeTrade, [...this.trade]);
      this.sendRequests(RequestCode.SubscribeOhlc, [...this.ohlc]);
      this.watchStaleness(socket);
    });
    socket.on('ping', () => {
      this.lastActivity = Date.now();
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.lastActivity = Date.now();
      if (!isBinary) return;
      // Error packets are standalone 13-byte messages followed by the server closing: react here,
      // on the socket's thread, rather than after a round trip through the decode workers.
      if (data.byteLength === ERROR_PACKET_SIZE && data[10] === ERROR_CODE) {
        const code = data.readInt16LE(11);
        this.options.events.onFeedError?.(this.index, code);
        if (code === 805) fatalCode = 805;
        else if (FATAL_FEED_CODES.has(code)) {
          fatalCode = code;
          this.fatal(`the feed refused the credential with error ${code}`);
        }
      } else if (this.invalidAttempts > 0 || this.backoff.attempts > 0) {
        // Data flows: the connection is healthy again.
        this.invalidAttempts = 0;
        this.backoff.reset();
      }
      this.options.events.onFrame(this.index, data, nowMicros());
    });
    socket.on('error', () => {
      // 'close' follows and decides what to do.
    });
    socket.on('close', (code: number) => {
      clearInterval(this.staleTimer);
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.stateValue === 'stopped' || this.stateValue === 'fatal') return;
      if (fatalCode === 805) {
        this.setState('evicted', 'another session took this connection slot (805)');
        this.schedule(this.options.evictionBackoffMs ?? 60_000);
        return;
      }
      if (!opened && this.invalidAttempts >= (this.options.maxInvalidAttempts ?? 10)) {
        this.fatal(`${this.invalidAttempts} refused connection attempts in a row; giving up`);
        return;
      }
      if (opened) this.reconnects += 1;
      this.setState('backoff', `closed with code ${code}`);
      this.schedule(this.backoff.next());
    });
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
