/**
 * The states of one feed connection and the one function that moves between them.
 *
 * `FeedConnection` owns the socket, the timers and the budget ticket; every socket listener, timer and
 * public call becomes one `ConnectionEvent` fed to `transition`, which answers with the next state
 * (and the reason shown for it) and the `ConnectionAction`s the connection then carries out, in
 * order. Nothing here touches a socket or a clock, so the whole table is testable cell by cell.
 *
 *   idle ──start──▶ (budget) ──granted──▶ connecting ──opened──▶ open
 *     ▲                 │denied                 │closed             │closed / stale
 *     │                 ▼                       ▼                   ▼
 *     │             backoff ◀──transient── (classify) ──evicted──▶ evicted
 *     │                 │retry-due                │fatal               │retry-due
 *     │                 └──▶ (budget)             ▼                    └──▶ (budget)
 *     │                                        fatal
 *   any state ──stop──▶ stopped
 *
 * With a renewal path (`renewable` on the socket's events), a refused token (807-809, HTTP 401/403)
 * is not fatal: the Error packet is reported at once ('report-token-refused', the pool renews the
 * shared token) and the closed socket leaves the connection 'renewing', waiting for the pool's
 * 'reconnect-now' with the renewed token, or its 'give-up' (no renewal possible: fatal).
 *
 *   open ──error-packet 807──▶ (report) ──closed──▶ renewing ──reconnect-now──▶ (budget) ...
 *                                                       └──give-up──▶ fatal
 *
 * A reconnect asked for while a socket is open (a renewed token) drains it first: the connection
 * sends Disconnect and reads on until the server closes, so nothing the server sent is dropped;
 * that close ('closed' with `drained`) begins the next attempt at once.
 *
 * An event a state cannot receive (an 'opened' while idle, a timer in a connection that set none)
 * is a broken invariant: `transition` throws `IngestorError('ILLEGAL_TRANSITION')` naming both.
 * Events that can legitimately arrive late (a ping during the closing handshake after `stop()`, a
 * message after a fatal Error packet and before the server's close) are accepted and do nothing
 * that would revive the connection.
 */
import type { GapCause } from '@feedpipe/contracts';
import { IngestorError } from '../errors.js';
import { classifyFeedFailure, type FeedFailure } from './failure-class.js';

export type ConnectionState =
  | 'idle'
  | 'connecting'
  | 'open'
  | 'backoff'
  | 'evicted'
  /** The token was refused; waiting for a renewed one (or for the verdict that none can come). */
  | 'renewing'
  | 'fatal'
  | 'stopped';

export const CONNECTION_STATES: readonly ConnectionState[] = [
  'idle',
  'connecting',
  'open',
  'backoff',
  'evicted',
  'renewing',
  'fatal',
  'stopped',
];

export type RetryCause = 'transient' | 'evicted' | 'blocked' | 'budget';

export type ConnectionEvent =
  /** The application starts the connection. */
  | { type: 'start' }
  /** The application stops it for good. */
  | { type: 'stop' }
  /** A renewed token: drop the socket and try again at once. */
  | { type: 'reconnect-now'; reason: string }
  /** No renewed token can come (or the application gives up for another reason): stop for good. */
  | { type: 'give-up'; reason: string }
  /** The token source failed to give a token for the next attempt; try again later. */
  | { type: 'token-failed'; reason: string }
  /** The retry timer fired. */
  | { type: 'retry-due' }
  /** The attempt budget let an attempt begin; `reconnect` once the connection has ever opened. */
  | { type: 'ticket-granted'; reconnect: boolean }
  /** The attempt budget is spent for now. */
  | { type: 'ticket-denied' }
  /** The server refused the WebSocket upgrade with this HTTP status. */
  | { type: 'upgrade-refused'; status: number }
  | { type: 'opened' }
  | { type: 'ping' }
  | { type: 'text-message' }
  /**
   * A standalone 13-byte Error packet with this feed error code; `renewable` when a refused token
   * can be renewed (see the header).
   */
  | { type: 'error-packet'; code: number; renewable?: boolean }
  /** A binary message of market data. */
  | { type: 'data-message' }
  /** No ping or message for `timeoutMs` while reading was not paused. */
  | { type: 'stale'; timeoutMs: number }
  /**
   * The socket closed; `failure` is what went wrong first in its attempt. `drained`: the close
   * this connection asked for to reconnect (a renewed token), after reading what the server sent.
   */
  | { type: 'closed'; failure: FeedFailure; opened: boolean; renewable?: boolean; drained?: boolean };

export type ConnectionEventType = ConnectionEvent['type'];

export type ConnectionAction =
  /** Ask the shared attempt budget; its answer comes back as 'ticket-granted' or 'ticket-denied'. */
  | { type: 'begin-attempt' }
  /** Open a socket with the current credentials. */
  | { type: 'open-socket' }
  /** Close the running socket without listening to it any more (its attempt counts as failed). */
  | { type: 'drop-socket'; reason: string }
  /** Send Disconnect and close the running socket cleanly; stop reading at once. */
  | { type: 'close-socket' }
  | { type: 'terminate-socket' }
  /** Note the attempt's first failure (kept for the verdict at close). */
  | { type: 'record-failure'; failure: FeedFailure }
  /** Remember activity now (the stale watch's clock). */
  | { type: 'touch' }
  /** The socket opened: resubscribe, honour a pause, start the stale watch and the auth grace. */
  | { type: 'on-open' }
  /** The attempt proved valid (`onlyIfClean`: unless a failure was already seen). */
  | { type: 'prove-attempt'; onlyIfClean: boolean }
  /** The attempt failed; `blocked` when the failure may count toward an IP block. */
  | { type: 'fail-attempt'; blocked: boolean }
  /** Stop the stale watch and the auth grace timer of the closed socket; forget the socket. */
  | { type: 'release-socket' }
  | { type: 'count-reconnect' }
  /** Data flows: the connection is healthy, the reconnect backoff starts over. */
  | { type: 'reset-backoff' }
  | { type: 'schedule-retry'; cause: RetryCause }
  | { type: 'cancel-retry' }
  | { type: 'report-feed-error'; code: number }
  /** The feed refused the token of this attempt with `code`: ask for a renewed one. */
  | { type: 'report-token-refused'; code: number }
  | { type: 'report-text' }
  /** Note when data last arrived and pass on a Market Status it carries. */
  | { type: 'mark-data' }
  /** Hand the message to the pipeline. */
  | { type: 'deliver-frame' };

export interface Transition {
  next: ConnectionState;
  /** Set when the state is (re-)entered and reported; unset means nothing to report. */
  reason?: string;
  actions: readonly ConnectionAction[];
}

const LIVE: readonly ConnectionState[] = ['idle', 'connecting', 'open', 'backoff', 'evicted', 'renewing'];
/** States in which a socket may exist and deliver events. */
const WITH_SOCKET: readonly ConnectionState[] = ['connecting', 'open', 'backoff', 'fatal'];
/** States in which a socket has opened and may deliver messages. */
const READING: readonly ConnectionState[] = ['open', 'backoff', 'fatal'];

function stay(state: ConnectionState, actions: readonly ConnectionAction[] = []): Transition {
  return { next: state, actions };
}

function illegal(state: ConnectionState, event: ConnectionEvent): never {
  throw new IngestorError('ILLEGAL_TRANSITION', `feed connection: event '${event.type}' in state '${state}'`);
}

/** A socket closed: the verdict of its first failure decides between retry, wait and stop. */
function onClosed(state: ConnectionState, event: Extract<ConnectionEvent, { type: 'closed' }>): Transition {
  const judged = classifyFeedFailure(event.failure, { canRenewToken: event.renewable === true });
  // A no-op for an attempt already proven valid; any other attempt counts as invalid.
  const settle: ConnectionAction[] = [
    { type: 'fail-attempt', blocked: judged.verdict === 'blocked' },
    { type: 'release-socket' },
  ];
  if (state === 'fatal' || state === 'stopped') return stay(state, settle);
  if (event.opened) settle.push({ type: 'count-reconnect' });
  // The asked-for close of a reconnect (nothing else went wrong first): the next attempt at once.
  if (event.drained && judged.verdict === 'transient')
    return stay(state, [...settle, { type: 'reset-backoff' }, { type: 'begin-attempt' }]);
  switch (judged.verdict) {
    case 'fatal':
      return { next: 'fatal', reason: judged.reason, actions: [...settle, { type: 'cancel-retry' }] };
    case 'token':
      // No retry of its own: the pool reconnects every connection once the renewed token is in.
      return { next: 'renewing', reason: judged.reason, actions: [...settle, { type: 'cancel-retry' }] };
    case 'evicted':
      return {
        next: 'evicted',
        reason: 'another session took this connection slot (805)',
        actions: [...settle, { type: 'schedule-retry', cause: 'evicted' }],
      };
    default:
      return {
        next: 'backoff',
        reason: judged.reason,
        actions: [...settle, { type: 'schedule-retry', cause: judged.verdict }],
      };
  }
}

function onErrorPacket(state: ConnectionState, code: number, renewable: boolean): Transition {
  const failure: FeedFailure = { kind: 'error-packet', code };
  const seen: ConnectionAction[] = [
    { type: 'touch' },
    { type: 'record-failure', failure },
    { type: 'report-feed-error', code },
  ];
  const judged = classifyFeedFailure(failure, { canRenewToken: renewable });
  // Reported now, not at the close that follows: the renewal starts a round trip earlier.
  if (judged.verdict === 'token' && state !== 'fatal') {
    return stay(state, [...seen, { type: 'report-token-refused', code }, { type: 'deliver-frame' }]);
  }
  // Error packets are followed by the server closing; a fatal one stops retries now, not at close.
  if (judged.verdict === 'fatal' && state !== 'fatal') {
    return {
      next: 'fatal',
      reason: judged.reason,
      actions: [
        ...seen,
        { type: 'fail-attempt', blocked: false },
        { type: 'cancel-retry' },
        { type: 'deliver-frame' },
      ],
    };
  }
  return stay(state, [...seen, { type: 'deliver-frame' }]);
}

/**
 * 'stopped' is final: late socket events are accepted and ignored, except that a closing socket
 * still settles its attempt with the budget.
 */
function whenStopped(event: ConnectionEvent): Transition {
  const state: ConnectionState = 'stopped';
  switch (event.type) {
    case 'start':
    case 'stop':
    case 'reconnect-now':
    case 'give-up':
    case 'token-failed':
    case 'ping':
    case 'text-message':
    case 'error-packet':
    case 'data-message':
    case 'opened':
    case 'upgrade-refused':
    case 'stale':
      return stay(state);
    case 'closed':
      return onClosed(state, event);
    default:
      return illegal(state, event);
  }
}

/**
 * The one transition function: the state after `event` in `state`, and what to do about it.
 * Throws `IngestorError('ILLEGAL_TRANSITION')` for an event the state cannot receive.
 */
export function transition(state: ConnectionState, event: ConnectionEvent): Transition {
  if (state === 'stopped') return whenStopped(event);
  switch (event.type) {
    case 'start':
      return state === 'idle' ? stay(state, [{ type: 'begin-attempt' }]) : stay(state);
    case 'stop':
      return {
        next: 'stopped',
        reason: 'stopped by the application',
        actions: [{ type: 'cancel-retry' }, { type: 'close-socket' }],
      };
    case 'reconnect-now':
      if (state === 'fatal') return stay(state);
      return stay(state, [
        { type: 'cancel-retry' },
        { type: 'drop-socket', reason: event.reason },
        { type: 'reset-backoff' },
        { type: 'begin-attempt' },
      ]);
    case 'give-up':
      if (state === 'fatal') return stay(state);
      return {
        next: 'fatal',
        reason: event.reason,
        actions: [{ type: 'cancel-retry' }, { type: 'close-socket' }],
      };
    case 'token-failed':
      if (!LIVE.includes(state)) return illegal(state, event);
      return {
        next: 'backoff',
        reason: `no token for the next attempt: ${event.reason}`,
        actions: [{ type: 'schedule-retry', cause: 'transient' }],
      };
    case 'retry-due':
      if (state === 'backoff' || state === 'evicted') return stay(state, [{ type: 'begin-attempt' }]);
      return illegal(state, event);
    case 'ticket-granted':
      if (!LIVE.includes(state)) return illegal(state, event);
      return {
        next: 'connecting',
        reason: event.reconnect ? 'reconnecting' : 'connecting',
        actions: [{ type: 'open-socket' }],
      };
    case 'ticket-denied':
      if (!LIVE.includes(state)) return illegal(state, event);
      return {
        next: 'backoff',
        reason: 'waiting for the connection-attempt budget',
        actions: [{ type: 'schedule-retry', cause: 'budget' }],
      };
    case 'upgrade-refused':
      if (state !== 'connecting') return illegal(state, event);
      return stay(state, [
        { type: 'record-failure', failure: { kind: 'http', status: event.status } },
        { type: 'report-feed-error', code: event.status },
        { type: 'terminate-socket' },
      ]);
    case 'opened':
      if (state !== 'connecting') return illegal(state, event);
      return { next: 'open', reason: 'connected', actions: [{ type: 'touch' }, { type: 'on-open' }] };
    case 'ping':
      if (!READING.includes(state)) return illegal(state, event);
      return stay(state, [{ type: 'touch' }, { type: 'prove-attempt', onlyIfClean: true }]);
    case 'text-message':
      // The feed speaks binary only; a text message is not ours to decode. Counted, then skipped.
      if (!READING.includes(state)) return illegal(state, event);
      return stay(state, [{ type: 'touch' }, { type: 'report-text' }]);
    case 'error-packet':
      if (!READING.includes(state)) return illegal(state, event);
      return onErrorPacket(state, event.code, event.renewable === true);
    case 'data-message':
      if (!READING.includes(state)) return illegal(state, event);
      return stay(state, [
        { type: 'touch' },
        { type: 'mark-data' },
        { type: 'prove-attempt', onlyIfClean: false },
        { type: 'reset-backoff' },
        { type: 'deliver-frame' },
      ]);
    case 'stale':
      if (state === 'open' || state === 'backoff')
        return {
          next: 'backoff',
          reason: `no ping or data for ${event.timeoutMs} ms`,
          actions: [{ type: 'terminate-socket' }],
        };
      // A fatal connection is already on its way out: the socket goes, the verdict stays.
      if (state === 'fatal') return stay(state, [{ type: 'terminate-socket' }]);
      return illegal(state, event);
    case 'closed':
      if (!WITH_SOCKET.includes(state)) return illegal(state, event);
      return onClosed(state, event);
  }
}

/** Whether a connection's subscriptions are live, and why not when they are not. */
export type LinkState = { live: true } | { live: false; cause: GapCause };

/** What a reconnect asked for by the application does with the running socket. */
export type ReconnectPlan =
  /** Drain the open socket (Disconnect, read on until the server closes); the close reconnects. */
  | 'drain'
  /** A drain for a reconnect is already under way: nothing more to do. */
  | 'draining'
  /** No open socket to drain: feed 'reconnect-now' (drop whatever socket there is, start over). */
  | 'reconnect';

/**
 * All the state of one connection that is not a socket handle or a timer: the machine's state and
 * the reason shown for it, and the facts liveness is judged from (the running socket has opened,
 * reading is paused for backpressure, a drain for a reconnect is under way, why the application took
 * the subscriptions down). `transition` decides the moves; this object keeps what they lead to and
 * answers whether the subscriptions are live, and with which gap cause when not, for the ledger.
 */
export class ConnectionMachine {
  #state: ConnectionState = 'idle';
  #reason = '';
  #since = Date.now();
  /** The running socket has opened and has not been released, dropped or closed since. */
  #socketOpen = false;
  #everOpened = false;
  #paused = false;
  #draining = false;
  /** Why the application took the subscriptions down (a reconnect), until they are live again. */
  #dropCause: GapCause | undefined;
  #link: LinkState = { live: false, cause: 'reconnect_pending' };

  get state(): ConnectionState {
    return this.#state;
  }

  get reason(): string {
    return this.#reason;
  }

  /** Epoch ms since the connection is in its state. */
  get stateSince(): number {
    return this.#since;
  }

  /** Whether a socket of this connection has ever opened (its next attempt is a reconnect). */
  get everOpened(): boolean {
    return this.#everOpened;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** A drain for a reconnect is under way on the running socket. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Moves on `event` (which happened at `atMs`, epoch ms: when the socket's thread saw it, for a
   * socket's event): the next state and the actions to carry out. Throws
   * `IngestorError('ILLEGAL_TRANSITION')` (and changes nothing) for an event the state cannot receive.
   */
  fire(event: ConnectionEvent, atMs: number = Date.now()): Transition {
    const step = transition(this.#state, event);
    if (step.reason !== undefined) this.#enter(step.next, step.reason, atMs);
    if (event.type === 'opened') {
      this.#socketOpen = true;
      this.#everOpened = true;
    }
    for (const action of step.actions) {
      if (
        action.type === 'drop-socket' ||
        action.type === 'close-socket' ||
        action.type === 'release-socket'
      ) {
        this.#socketOpen = false;
        this.#draining = false;
      }
    }
    return step;
  }

  /** A broken invariant stopped the connection (see FeedConnection's dispatch). */
  failed(reason: string): void {
    this.#enter('fatal', reason);
  }

  setPaused(paused: boolean): void {
    this.#paused = paused;
  }

  /**
   * The application asks for a reconnect (`cause`: what the gap until the subscriptions are live
   * again is recorded as); `writable`: the running socket can still send Disconnect.
   */
  planReconnect(cause: GapCause, writable: boolean): ReconnectPlan {
    if (this.#state === 'open' && this.#socketOpen && writable) {
      // The gap begins when the drained socket closes; it is this reconnect's, whatever came before.
      this.#dropCause = cause;
      if (this.#draining) return 'draining';
      this.#draining = true;
      return 'drain';
    }
    if (this.#link.live) this.#dropCause = cause;
    return 'reconnect';
  }

  /**
   * The liveness now, when it differs from the last one reported (else undefined). The cause of a
   * gap is decided when it starts (why the socket went) and kept until the subscriptions are live
   * again, except that a pause for backpressure ends when the socket itself goes.
   */
  relink(): LinkState | undefined {
    const reading = this.#state === 'open' && this.#socketOpen;
    let next: LinkState;
    if (reading && !this.#paused) {
      next = { live: true };
      // A socket draining for a reconnect is still live; the cause of the gap to come is kept.
      if (!this.#draining) this.#dropCause = undefined;
    } else if (reading) {
      next = { live: false, cause: 'backpressure' };
    } else if (!this.#link.live && this.#link.cause !== 'backpressure') {
      return undefined;
    } else {
      next = { live: false, cause: this.#dropCause ?? causeOfState(this.#state) };
    }
    const same = next.live ? this.#link.live : !this.#link.live && this.#link.cause === next.cause;
    if (same) return undefined;
    this.#link = next;
    return next;
  }

  #enter(state: ConnectionState, reason: string, atMs: number = Date.now()): void {
    if (state !== this.#state) this.#since = atMs;
    this.#state = state;
    this.#reason = reason;
  }
}

/** The gap cause of a state the subscriptions are down in, when no other cause was given. */
function causeOfState(state: ConnectionState): GapCause {
  switch (state) {
    case 'evicted':
      return 'eviction';
    case 'renewing':
      return 'token_renewal';
    case 'stopped':
      return 'process_stopped';
    default:
      return 'connection_down';
  }
}
