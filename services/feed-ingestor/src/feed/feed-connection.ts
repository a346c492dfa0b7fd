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
 *
 * What happens next is decided in one place too: every socket listener, timer and public call is one
 * event fed to `transition` (connection-machine.ts), and this class only carries out the actions it
 * answers with. The socket and the attempt's facts (its first failure, whether it opened) live in an
 * `Attempt` per socket, so a late event of an old socket never mixes with the running one.
 *
 * The connection's state (the machine's state, its reason, whether the subscriptions are live and
 * the gap cause when they are not) lives in one `ConnectionMachine`; this class holds the handles
 * (socket, timers, budget ticket) and reports what the machine says through the events.
 *
 * The token is asked of the credentials' `TokenSource` before every attempt (a renewed one is used
 * from the next (re)connect on); a refused token is reported through `onTokenRefused`, whose owner
 * (the pool) renews it and reconnects. Whether the subscriptions are live (socket open, reading not
 * paused) is reported through `onLink` with the cause when they are not, for the ledger of gaps.
 * Which instruments the connection holds is the subscription book's (subscription-book.ts): the
 * connection sends the requests and re-sends its holdings after every reconnect.
 */

import type { TokenSource } from '@feedpipe/broker-api';
import {
  buildDisconnectRequest,
  buildSubscriptionRequests,
  type InstrumentRef,
  RequestCode,
} from '@feedpipe/codec';
import type { GapCause } from '@feedpipe/contracts';
import { Backoff } from '@feedpipe/retry';
import { nowMicros } from '../epoch-micros.js';
import { IngestorError } from '../errors.js';
import { AttemptBudget, type AttemptTicket } from './attempt-budget.js';
import {
  type ConnectionAction,
  type ConnectionEvent,
  ConnectionMachine,
  type ConnectionState,
  type LinkState,
  type RetryCause,
  type Transition,
} from './connection-machine.js';
import type { FeedFailure } from './failure-class.js';
import {
  type FeedSocket,
  type FeedSocketHandlers,
  type FeedSocketOpener,
  openInThread,
} from './feed-socket.js';
import { lastMarketStatus, loneErrorCode } from './frame-scan.js';
import type { HeldByConnection, SubscriptionKind } from './subscription-book.js';

export type { ConnectionState } from './connection-machine.js';

export interface FeedCredentials {
  clientId: string;
  /** A fixed token (cannot be renewed: a refused one is fatal), or a source asked before every attempt. */
  token: string | TokenSource;
  authType: 1 | 2 | 3;
}

export interface FeedConnectionEvents {
  /** One binary WebSocket message, as received. */
  onFrame(connection: number, frame: Buffer, receivedAtMicros: number): void;
  onState?(connection: number, state: ConnectionState, reason: string): void;
  /** Feed error code from an Error packet (805-809), or an HTTP status of a refused upgrade. */
  onFeedError?(connection: number, code: number): void;
  /** The next attempt is scheduled in `delayMs`; `cause` is the failure's verdict or 'budget'. */
  onRetry?(connection: number, delayMs: number, cause: RetryCause): void;
  /** A text message arrived: the feed is binary, so it is counted and skipped. */
  onTextFrame?(connection: number, bytes: number): void;
  /** A Market Status packet passed (its MarketStatus value; the last one of its message). */
  onMarketStatus?(connection: number, status: number): void;
  /**
   * The feed refused `token` (the one this attempt connected with) with `code` (807-809). Its owner
   * renews the token and calls `reconnectNow`, or `giveUp` when it cannot. Without this handler a
   * refused token is fatal.
   */
  onTokenRefused?(connection: number, code: number, token: string): void;
  /** The subscriptions became live, or stopped being live (with the cause), at `atMs`. */
  onLink?(connection: number, link: LinkState, atMs: number): void;
  /**
   * A message read from a socket this connection no longer delivers from: `stopped` (closing for
   * stop()), `dropped` (given up for a reconnect). Counted, so no frame disappears unseen.
   */
  onUndelivered?(connection: number, reason: 'stopped' | 'dropped'): void;
}

export interface FeedConnectionOptions {
  index: number;
  /** Feed URL without query, e.g. ws://127.0.0.1:7075/ */
  url: string;
  credentials: () => FeedCredentials;
  events: FeedConnectionEvents;
  /** The instruments this connection holds (the subscription book's entry), re-sent on every open. */
  subscriptions?: HeldByConnection;
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
  /**
   * Where the socket lives: on this thread (default), or a pool's socket thread (socket-thread.ts),
   * which sends the subscriptions as the socket opens and stamps messages as read, whatever this
   * thread is busy with.
   */
  openSocket?: FeedSocketOpener;
}

/**
 * An open connection that got no Error packet within this long passed authentication (the server
 * answers a refused credential at once), so its attempt is valid even before the first ping.
 */
const AUTH_GRACE_MS = 1_000;
/** How long a socket ended for a reconnect may take to close after Disconnect before it is cut. */
const DRAIN_TIMEOUT_MS = 2_000;
/** While reading is paused for backpressure the drain waits longer, up to this in all. */
const DRAIN_PAUSED_LIMIT_MS = 60_000;

/** One socket and the facts of its attempt. */
interface Attempt {
  readonly socket: FeedSocket;
  /** The subscriptions the socket's greeting carried (sent as it opened). */
  readonly greeted: HeldByConnection;
  readonly ticket: AttemptTicket;
  /** The token the socket presented. */
  readonly token: string;
  opened: boolean;
  /** What went wrong first, judged when the socket closes. */
  failure: FeedFailure | undefined;
  graceTimer: NodeJS.Timeout | undefined;
  /** Bounds a drain for a reconnect (Disconnect sent, reading on until the server closes). */
  drainTimer: NodeJS.Timeout | undefined;
}

/** The message an event came with, for the actions that pass it on, and when the socket saw it. */
interface Inbound {
  data?: Buffer;
  /** When the socket's thread read `data` (epoch µs). */
  receivedAtMicros?: number;
  /** When the socket's thread saw the event (epoch ms): the state it leads to dates from then. */
  atMs?: number;
}

const NONE_HELD: HeldByConnection = { trade: new Set(), ohlc: new Set() };

type SubscriptionCode = 15 | 16 | 17 | 18;

/** The ids of `from` that `other` lacks. */
function notIn(from: ReadonlySet<string>, other: ReadonlySet<string>): string[] {
  return [...from].filter((id) => !other.has(id));
}

/** The requests that (un)subscribe `securityIds` (the codec splits them 100 instruments a request). */
function subscriptionRequests(code: SubscriptionCode, securityIds: readonly string[]): string[] {
  if (securityIds.length === 0) return [];
  const instruments: InstrumentRef[] = securityIds.map((securityId) => ({
    exchangeSegment: 'INX_EQ',
    securityId,
  }));
  // The codec refuses a list above 5,000 (one connection's limit, which the pool keeps); a subset
  // of what one connection holds never is, but the split keeps a request within it regardless.
  const requests: string[] = [];
  for (let start = 0; start < instruments.length; start += 5000)
    requests.push(...buildSubscriptionRequests(code, instruments.slice(start, start + 5000)));
  return requests;
}

export class FeedConnection {
  readonly index: number;
  private attempt: Attempt | undefined;
  private readonly machine = new ConnectionMachine();
  private readonly backoff: Backoff;
  private retryTimer: NodeJS.Timeout | undefined;
  private staleTimer: NodeJS.Timeout | undefined;
  private lastActivity = 0;
  private readonly budget: AttemptBudget;
  /** The ticket granted by 'begin-attempt', taken by the 'open-socket' that follows it. */
  private pendingTicket: AttemptTicket | undefined;
  /** The token fetched by 'begin-attempt' for the 'open-socket' that follows it. */
  private pendingToken = '';
  /** Counts 'begin-attempt's: a token that arrives for an older one is not used. */
  private beginSeq = 0;
  private lastTokenValue = '';
  /** Epoch ms of the last market-data message (not pings, not errors); 0 before the first. */
  lastDataAt = 0;
  /** Reconnects after the first successful open. */
  reconnects = 0;
  private readonly options: FeedConnectionOptions;

  constructor(options: FeedConnectionOptions) {
    this.options = options;
    this.index = options.index;
    this.backoff = options.backoff ?? new Backoff({ initialMs: 500, maxMs: 30_000 });
    this.budget = options.budget ?? new AttemptBudget();
  }

  get state(): ConnectionState {
    return this.machine.state;
  }

  get reason(): string {
    return this.machine.reason;
  }

  /** Epoch ms of the last state change. */
  get stateSince(): number {
    return this.machine.stateSince;
  }

  start(): void {
    this.dispatch({ type: 'start' });
  }

  stop(): void {
    this.dispatch({ type: 'stop' });
  }

  /**
   * Close cleanly and reconnect at once (with a renewed token: the next attempt asks the source);
   * `cause` is what the gap until the subscriptions are live again is recorded as.
   */
  reconnectNow(reason: string, cause: GapCause = 'reconnect_pending'): void {
    const attempt = this.attempt;
    const writable = attempt?.socket.writable === true;
    const plan = this.machine.planReconnect(cause, writable);
    if (plan === 'drain' && attempt) this.drain(attempt, reason);
    else if (plan === 'reconnect') this.dispatch({ type: 'reconnect-now', reason });
  }

  /**
   * Ends an open socket for a reconnect without losing what is on its way: Disconnect, then every
   * message up to the server's close is still delivered; the close begins the next attempt. A
   * server that has not closed within DRAIN_TIMEOUT_MS is cut off (the reconnect goes on).
   */
  private drain(attempt: Attempt, reason: string): void {
    try {
      attempt.socket.send(buildDisconnectRequest());
    } catch {
      // The close below or the timer ends it anyway.
    }
    const startedAt = Date.now();
    const check = (): void => {
      if (this.attempt !== attempt) return;
      // Reading paused for backpressure: the server's close waits behind what is unread.
      if (this.machine.paused && Date.now() - startedAt < DRAIN_PAUSED_LIMIT_MS) {
        attempt.drainTimer = setTimeout(check, DRAIN_TIMEOUT_MS);
        attempt.drainTimer.unref();
        return;
      }
      this.dispatch({ type: 'reconnect-now', reason });
    };
    attempt.drainTimer = setTimeout(check, DRAIN_TIMEOUT_MS);
    attempt.drainTimer.unref();
  }

  /** No way on (e.g. the refused token cannot be renewed): stop for good and say why. */
  giveUp(reason: string): void {
    this.dispatch({ type: 'give-up', reason });
  }

  /** The token the latest socket presented ('' before the first). */
  get lastToken(): string {
    return this.lastTokenValue;
  }

  /** Sends the subscribe requests of instruments just added to this connection (when a socket is open). */
  sendSubscribe(kind: SubscriptionKind, securityIds: readonly string[]): void {
    this.sendRequests(kind === 'trade' ? RequestCode.SubscribeTrade : RequestCode.SubscribeOhlc, securityIds);
  }

  /** Sends the unsubscribe requests of instruments just taken off this connection. */
  sendUnsubscribe(kind: SubscriptionKind, securityIds: readonly string[]): void {
    this.sendRequests(
      kind === 'trade' ? RequestCode.UnsubscribeTrade : RequestCode.UnsubscribeOhlc,
      securityIds,
    );
  }

  /** Stops reading the socket (TCP backpressure) while the pipeline is full. */
  setPaused(paused: boolean): void {
    this.machine.setPaused(paused);
    const socket = this.attempt?.socket;
    if (socket) {
      if (paused) socket.pause();
      else socket.resume();
    }
    this.reportLink();
  }

  /**
   * Feeds one event through the transition function and carries out its actions. `from` is the
   * attempt whose socket raised the event (unset for calls and timers); `inbound` its message.
   */
  private dispatch(event: ConnectionEvent, from?: Attempt, inbound: Inbound = {}): void {
    let step: Transition;
    try {
      step = this.machine.fire(event, inbound.atMs);
    } catch (error) {
      // A broken invariant, raised inside a socket listener where a throw would take the process
      // down: this connection stops and says why, the others go on.
      if (!(error instanceof IngestorError)) throw error;
      clearTimeout(this.retryTimer);
      from?.socket.terminate();
      this.machine.failed(`${error.code}: ${error.message}`);
      this.options.events.onState?.(this.index, this.machine.state, this.machine.reason);
      return;
    }
    if (step.reason !== undefined) this.options.events.onState?.(this.index, step.next, step.reason);
    for (const action of step.actions) this.run(action, from ?? this.attempt, inbound);
    this.reportLink();
  }

  /** Passes on a change of liveness (the machine judges it). */
  private reportLink(): void {
    const link: LinkState | undefined = this.machine.relink();
    if (link) this.options.events.onLink?.(this.index, link, Date.now());
  }

  private run(action: ConnectionAction, attempt: Attempt | undefined, inbound: Inbound): void {
    switch (action.type) {
      case 'begin-attempt':
        this.beginAttempt();
        return;
      case 'open-socket':
        this.openSocket();
        return;
      case 'drop-socket':
        this.dropSocket(action.reason);
        return;
      case 'close-socket':
        this.closeSocket();
        return;
      case 'terminate-socket':
        attempt?.socket.terminate();
        return;
      case 'record-failure':
        if (attempt) attempt.failure ??= action.failure;
        return;
      case 'touch':
        this.lastActivity = Date.now();
        return;
      case 'on-open':
        if (attempt) this.onOpen(attempt);
        return;
      case 'prove-attempt':
        if (attempt && (!action.onlyIfClean || attempt.failure === undefined)) this.prove(attempt);
        return;
      case 'fail-attempt':
        attempt?.ticket.failed(action.blocked);
        return;
      case 'release-socket':
        if (attempt) this.release(attempt);
        return;
      case 'count-reconnect':
        this.reconnects += 1;
        return;
      case 'reset-backoff':
        if (this.backoff.attempts > 0) this.backoff.reset();
        return;
      case 'schedule-retry':
        this.scheduleRetry(action.cause);
        return;
      case 'cancel-retry':
        clearTimeout(this.retryTimer);
        return;
      case 'report-feed-error':
        this.options.events.onFeedError?.(this.index, action.code);
        return;
      case 'report-token-refused':
        this.options.events.onTokenRefused?.(this.index, action.code, attempt?.token ?? '');
        return;
      case 'report-text':
        this.options.events.onTextFrame?.(this.index, inbound.data?.byteLength ?? 0);
        return;
      case 'mark-data': {
        this.lastDataAt = this.lastActivity;
        const status = inbound.data ? lastMarketStatus(inbound.data) : undefined;
        if (status !== undefined) this.options.events.onMarketStatus?.(this.index, status);
        return;
      }
      case 'deliver-frame':
        if (inbound.data)
          this.options.events.onFrame(this.index, inbound.data, inbound.receivedAtMicros ?? nowMicros());
        return;
    }
  }

  private sendRequests(code: SubscriptionCode, securityIds: readonly string[]): void {
    const socket = this.attempt?.socket;
    if (!socket?.writable) return;
    for (const request of subscriptionRequests(code, securityIds)) socket.send(request);
  }

  /**
   * The token first (a source may renew or re-read it), then the attempt budget. What arrives for
   * an attempt that is no longer wanted (stopped, given up, superseded) is dropped.
   */
  private beginAttempt(): void {
    const seq = ++this.beginSeq;
    const source = this.options.credentials().token;
    const wanted = (): boolean =>
      seq === this.beginSeq && this.machine.state !== 'stopped' && this.machine.state !== 'fatal';
    const proceed = (token: string): void => {
      if (!wanted()) return;
      const ticket = this.budget.tryBegin();
      if (ticket) {
        this.pendingTicket = ticket;
        this.pendingToken = token;
        this.dispatch({ type: 'ticket-granted', reconnect: this.machine.everOpened });
      } else this.dispatch({ type: 'ticket-denied' });
    };
    if (typeof source === 'string') {
      proceed(source);
      return;
    }
    source.getToken().then(proceed, (error: unknown) => {
      if (wanted()) this.dispatch({ type: 'token-failed', reason: (error as Error).message });
    });
  }

  private openSocket(): void {
    const ticket = this.pendingTicket;
    const token = this.pendingToken;
    this.pendingTicket = undefined;
    this.pendingToken = '';
    if (!ticket) return;
    this.lastTokenValue = token;
    const credentials = this.options.credentials();
    const url = new URL(this.options.url);
    url.searchParams.set('clientId', credentials.clientId);
    url.searchParams.set('token', token);
    url.searchParams.set('authType', String(credentials.authType));
    url.searchParams.set('version', '2');
    // What the connection holds now is subscribed by the socket itself as it opens; onOpen sends
    // whatever changed in between.
    const held = this.options.subscriptions ?? NONE_HELD;
    const greeted: HeldByConnection = { trade: new Set(held.trade), ohlc: new Set(held.ohlc) };
    const greeting = [
      ...subscriptionRequests(RequestCode.SubscribeTrade, [...greeted.trade]),
      ...subscriptionRequests(RequestCode.SubscribeOhlc, [...greeted.ohlc]),
    ];
    const open = this.options.openSocket ?? openInThread;
    // The handlers reach the attempt through this holder: the socket exists only once opened.
    const holder: { attempt?: Attempt } = {};
    const socket = open(
      url,
      { handshakeTimeoutMs: this.options.handshakeTimeoutMs ?? 10_000, greeting },
      this.handlersOf(() => holder.attempt),
    );
    const attempt: Attempt = {
      socket,
      greeted,
      ticket,
      token,
      opened: false,
      failure: undefined,
      graceTimer: undefined,
      drainTimer: undefined,
    };
    holder.attempt = attempt;
    this.attempt = attempt;
  }

  /** The socket's handlers: each turns what happened into one event, nothing more. */
  private handlersOf(attemptOf: () => Attempt | undefined): FeedSocketHandlers {
    return {
      refused: (status) => {
        const attempt = attemptOf();
        if (attempt) this.dispatch({ type: 'upgrade-refused', status }, attempt);
      },
      open: (atMs) => {
        const attempt = attemptOf();
        if (!attempt) return;
        attempt.opened = true;
        this.dispatch({ type: 'opened' }, attempt, { atMs });
      },
      ping: () => {
        const attempt = attemptOf();
        if (attempt) this.dispatch({ type: 'ping' }, attempt);
      },
      message: (data, isBinary, receivedAtMicros) => {
        const attempt = attemptOf();
        if (!attempt) return;
        // Error packets are standalone 13-byte messages followed by the server closing: react here,
        // on the connection's thread, rather than after a round trip through the decode workers.
        const errorCode = isBinary ? loneErrorCode(data) : undefined;
        const event: ConnectionEvent = !isBinary
          ? { type: 'text-message' }
          : errorCode !== undefined
            ? { type: 'error-packet', code: errorCode, renewable: this.renewable }
            : { type: 'data-message' };
        this.dispatch(event, attempt, { data, receivedAtMicros, atMs: Math.floor(receivedAtMicros / 1000) });
      },
      close: (code, atMs) => {
        const attempt = attemptOf();
        if (!attempt) return;
        const failure =
          attempt.failure ??
          (attempt.opened ? { kind: 'closed' as const, code } : { kind: 'network' as const });
        clearTimeout(attempt.drainTimer);
        this.dispatch(
          {
            type: 'closed',
            failure,
            opened: attempt.opened,
            renewable: this.renewable,
            drained: this.attempt === attempt && this.machine.draining,
          },
          attempt,
          { atMs },
        );
      },
    };
  }

  private onOpen(attempt: Attempt): void {
    attempt.graceTimer = setTimeout(() => {
      if (attempt.failure === undefined) this.prove(attempt);
    }, AUTH_GRACE_MS);
    if (this.machine.paused) attempt.socket.pause();
    // The greeting subscribed what was held when the socket was asked for; bring it up to now.
    const held = this.options.subscriptions ?? NONE_HELD;
    const { greeted } = attempt;
    const changes: Array<[SubscriptionCode, string[]]> = [
      [RequestCode.SubscribeTrade, notIn(held.trade, greeted.trade)],
      [RequestCode.SubscribeOhlc, notIn(held.ohlc, greeted.ohlc)],
      [RequestCode.UnsubscribeTrade, notIn(greeted.trade, held.trade)],
      [RequestCode.UnsubscribeOhlc, notIn(greeted.ohlc, held.ohlc)],
    ];
    for (const [code, ids] of changes) this.sendRequests(code, ids);
    this.watchStaleness(attempt);
  }

  private prove(attempt: Attempt): void {
    clearTimeout(attempt.graceTimer);
    attempt.ticket.succeeded();
  }

  /** The closed socket's timers stop; the connection forgets it if it is still the running one. */
  private release(attempt: Attempt): void {
    clearTimeout(attempt.graceTimer);
    if (this.attempt !== attempt) return;
    clearInterval(this.staleTimer);
    this.attempt = undefined;
  }

  private dropSocket(reason: string): void {
    const attempt = this.attempt;
    this.attempt = undefined;
    if (!attempt) return;
    clearTimeout(attempt.graceTimer);
    clearTimeout(attempt.drainTimer);
    if (attempt.opened) this.reconnects += 1;
    // Its close is no longer listened to: an attempt not yet proven stays counted (the safe side).
    attempt.ticket.failed();
    const { socket } = attempt;
    const ignore = (): void => undefined;
    socket.listen({
      open: ignore,
      ping: ignore,
      refused: ignore,
      close: ignore,
      message: () => this.options.events.onUndelivered?.(this.index, 'dropped'),
    });
    socket.close(1000, reason);
    setTimeout(() => socket.terminate(), 1_000).unref();
  }

  private closeSocket(): void {
    clearInterval(this.staleTimer);
    const attempt = this.attempt;
    this.attempt = undefined;
    if (!attempt) return;
    const { socket } = attempt;
    // Stop delivering at once: whatever arrives after stop() is not ours to deliver (only counted).
    socket.listen({ message: () => this.options.events.onUndelivered?.(this.index, 'stopped') });
    if (socket.writable) {
      try {
        socket.send(JSON.stringify({ requestCode: RequestCode.Disconnect }));
      } catch {
        // Closing anyway.
      }
      socket.close(1000, 'client stop');
      setTimeout(() => socket.terminate(), 1_000).unref();
    } else {
      socket.terminate();
    }
  }

  /** A refused token can be renewed only when someone listens for it (the pool does). */
  private get renewable(): boolean {
    return this.options.events.onTokenRefused !== undefined;
  }

  private random(): number {
    return (this.options.random ?? Math.random)();
  }

  /** Waits as `cause` asks, then feeds 'retry-due'. */
  private scheduleRetry(cause: RetryCause): void {
    let delay: number;
    if (cause === 'budget') {
      // The shared budget is spent (or another connection is probing after failures): wait, with a
      // little jitter so the connections waiting for the same slot do not all ask at once.
      delay = this.budget.delayMs() + Math.round(this.random() * 100);
    } else if (cause === 'evicted') {
      const base = this.options.evictionBackoffMs ?? 60_000;
      delay = base + Math.round(this.random() * (this.options.evictionJitterMs ?? 30_000));
    } else {
      delay = this.backoff.next();
    }
    this.options.events.onRetry?.(this.index, delay, cause);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.dispatch({ type: 'retry-due' }), delay);
  }

  private watchStaleness(attempt: Attempt): void {
    const timeout = this.options.staleTimeoutMs ?? 45_000;
    clearInterval(this.staleTimer);
    this.staleTimer = setInterval(
      () => {
        if (this.attempt === attempt && Date.now() - this.lastActivity > timeout && !this.machine.paused)
          this.dispatch({ type: 'stale', timeoutMs: timeout }, attempt);
      },
      Math.min(1_000, Math.max(50, Math.floor(timeout / 4))),
    );
  }
}
