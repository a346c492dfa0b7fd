/**
 * The feed connection's transition table, cell by cell: every state against every event, with the
 * next state (and whether it is reported) and the actions in order. An event a state cannot receive
 * is an `IngestorError` with code ILLEGAL_TRANSITION. Events that carry a verdict are tried with
 * one variant per verdict.
 */

import { describe, expect, it } from 'vitest';
import {
  CONNECTION_STATES,
  type ConnectionEvent,
  type ConnectionState,
  transition as connectionTransition,
} from '../src/feed/connection-machine.js';
import { IngestorError } from '../src/index.js';

const EVENTS: Record<string, ConnectionEvent> = {
  start: { type: 'start' },
  stop: { type: 'stop' },
  'reconnect-now': { type: 'reconnect-now', reason: 'token renewed' },
  'retry-due': { type: 'retry-due' },
  'ticket-granted': { type: 'ticket-granted', reconnect: false },
  'ticket-denied': { type: 'ticket-denied' },
  'upgrade-refused': { type: 'upgrade-refused', status: 503 },
  opened: { type: 'opened' },
  ping: { type: 'ping' },
  'text-message': { type: 'text-message' },
  'error-packet 805': { type: 'error-packet', code: 805 },
  'error-packet 806': { type: 'error-packet', code: 806 },
  'error-packet 807 renewable': { type: 'error-packet', code: 807, renewable: true },
  'data-message': { type: 'data-message' },
  stale: { type: 'stale', timeoutMs: 45_000 },
  'closed transient': { type: 'closed', failure: { kind: 'closed', code: 1006 }, opened: true },
  'closed never opened': { type: 'closed', failure: { kind: 'network' }, opened: false },
  'closed evicted': { type: 'closed', failure: { kind: 'error-packet', code: 805 }, opened: true },
  'closed blocked': { type: 'closed', failure: { kind: 'http', status: 429 }, opened: false },
  'closed fatal': { type: 'closed', failure: { kind: 'error-packet', code: 810 }, opened: true },
  'closed token': {
    type: 'closed',
    failure: { kind: 'error-packet', code: 807 },
    opened: true,
    renewable: true,
  },
  'give-up': { type: 'give-up', reason: 'no renewal' },
  'token-failed': { type: 'token-failed', reason: 'file missing' },
};

const X = 'ILLEGAL';
// Shorthands of action lists used in many cells.
const RECONNECT = 'cancel-retry drop-socket reset-backoff begin-attempt';
const STOP = 'stopped! cancel-retry close-socket';
const DATA = 'touch mark-data prove-attempt reset-backoff deliver-frame';
const EVICT = 'touch record-failure report-feed-error deliver-frame';
const FATAL_PACKET = 'fatal! touch record-failure report-feed-error fail-attempt cancel-retry deliver-frame';
const SETTLE = 'fail-attempt release-socket';
const TOKEN_PACKET = 'touch record-failure report-feed-error report-token-refused deliver-frame';
const GIVE_UP = 'fatal! cancel-retry close-socket';
const TOKEN_FAILED = 'backoff! schedule-retry';

/**
 * `next[!] actions...`: `!` when the state is (re-)entered and reported; no state name means the
 * state stays and nothing is reported.
 */
const TABLE: Record<ConnectionState, Record<keyof typeof EVENTS, string>> = {
  idle: {
    start: 'begin-attempt',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': X,
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': X,
    opened: X,
    ping: X,
    'text-message': X,
    'error-packet 805': X,
    'error-packet 807 renewable': X,
    'error-packet 806': X,
    'data-message': X,
    stale: X,
    'closed transient': X,
    'closed never opened': X,
    'closed evicted': X,
    'closed blocked': X,
    'closed fatal': X,
    'closed token': X,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  connecting: {
    start: '',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': X,
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': 'record-failure report-feed-error terminate-socket',
    opened: 'open! touch on-open',
    ping: X,
    'text-message': X,
    'error-packet 805': X,
    'error-packet 807 renewable': X,
    'error-packet 806': X,
    'data-message': X,
    stale: X,
    'closed transient': `backoff! ${SETTLE} count-reconnect schedule-retry`,
    'closed never opened': `backoff! ${SETTLE} schedule-retry`,
    'closed evicted': `evicted! ${SETTLE} count-reconnect schedule-retry`,
    'closed blocked': `backoff! ${SETTLE} schedule-retry`,
    'closed fatal': `fatal! ${SETTLE} count-reconnect cancel-retry`,
    'closed token': `renewing! ${SETTLE} count-reconnect cancel-retry`,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  open: {
    start: '',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': X,
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': X,
    opened: X,
    ping: 'touch prove-attempt',
    'text-message': 'touch report-text',
    'error-packet 805': EVICT,
    'error-packet 807 renewable': TOKEN_PACKET,
    'error-packet 806': FATAL_PACKET,
    'data-message': DATA,
    stale: 'backoff! terminate-socket',
    'closed transient': `backoff! ${SETTLE} count-reconnect schedule-retry`,
    'closed never opened': `backoff! ${SETTLE} schedule-retry`,
    'closed evicted': `evicted! ${SETTLE} count-reconnect schedule-retry`,
    'closed blocked': `backoff! ${SETTLE} schedule-retry`,
    'closed fatal': `fatal! ${SETTLE} count-reconnect cancel-retry`,
    'closed token': `renewing! ${SETTLE} count-reconnect cancel-retry`,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  backoff: {
    start: '',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': 'begin-attempt',
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': X,
    opened: X,
    // A stale socket is terminated but may still hand over what it had read before its close.
    ping: 'touch prove-attempt',
    'text-message': 'touch report-text',
    'error-packet 805': EVICT,
    'error-packet 807 renewable': TOKEN_PACKET,
    'error-packet 806': FATAL_PACKET,
    'data-message': DATA,
    stale: 'backoff! terminate-socket',
    'closed transient': `backoff! ${SETTLE} count-reconnect schedule-retry`,
    'closed never opened': `backoff! ${SETTLE} schedule-retry`,
    'closed evicted': `evicted! ${SETTLE} count-reconnect schedule-retry`,
    'closed blocked': `backoff! ${SETTLE} schedule-retry`,
    'closed fatal': `fatal! ${SETTLE} count-reconnect cancel-retry`,
    'closed token': `renewing! ${SETTLE} count-reconnect cancel-retry`,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  evicted: {
    start: '',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': 'begin-attempt',
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': X,
    opened: X,
    ping: X,
    'text-message': X,
    'error-packet 805': X,
    'error-packet 807 renewable': X,
    'error-packet 806': X,
    'data-message': X,
    stale: X,
    'closed transient': X,
    'closed never opened': X,
    'closed evicted': X,
    'closed blocked': X,
    'closed fatal': X,
    'closed token': X,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  renewing: {
    start: '',
    stop: STOP,
    'reconnect-now': RECONNECT,
    'retry-due': X,
    'ticket-granted': 'connecting! open-socket',
    'ticket-denied': 'backoff! schedule-retry',
    'upgrade-refused': X,
    opened: X,
    ping: X,
    'text-message': X,
    'error-packet 805': X,
    'error-packet 807 renewable': X,
    'error-packet 806': X,
    'data-message': X,
    stale: X,
    'closed transient': X,
    'closed never opened': X,
    'closed evicted': X,
    'closed blocked': X,
    'closed fatal': X,
    'closed token': X,
    'give-up': GIVE_UP,
    'token-failed': TOKEN_FAILED,
  },
  fatal: {
    start: '',
    stop: STOP,
    'reconnect-now': '',
    'retry-due': X,
    'ticket-granted': X,
    'ticket-denied': X,
    'upgrade-refused': X,
    opened: X,
    // After a fatal Error packet the server closes; what arrives until then is still delivered.
    ping: 'touch prove-attempt',
    'text-message': 'touch report-text',
    'error-packet 805': EVICT,
    'error-packet 807 renewable': EVICT,
    'error-packet 806': EVICT,
    'data-message': DATA,
    stale: 'terminate-socket',
    'closed transient': SETTLE,
    'closed never opened': SETTLE,
    'closed evicted': SETTLE,
    'closed blocked': SETTLE,
    'closed fatal': SETTLE,
    'closed token': SETTLE,
    'give-up': '',
    'token-failed': X,
  },
  stopped: {
    start: '',
    stop: '',
    'reconnect-now': '',
    'retry-due': X,
    'ticket-granted': X,
    'ticket-denied': X,
    'upgrade-refused': '',
    opened: '',
    ping: '',
    'text-message': '',
    'error-packet 805': '',
    'error-packet 807 renewable': '',
    'error-packet 806': '',
    'data-message': '',
    stale: '',
    'closed transient': SETTLE,
    'closed never opened': SETTLE,
    'closed evicted': SETTLE,
    'closed blocked': SETTLE,
    'closed fatal': SETTLE,
    'closed token': SETTLE,
    'give-up': '',
    'token-failed': '',
  },
};

function describeStep(state: ConnectionState, event: ConnectionEvent): string {
  try {
    const step = connectionTransition(state, event);
    if (step.reason === undefined) expect(step.next, 'a state change is always reported').toBe(state);
    const head = step.reason === undefined ? [] : [`${step.next}!`];
    return [...head, ...step.actions.map((a) => a.type)].join(' ');
  } catch (error) {
    expect(error).toBeInstanceOf(IngestorError);
    expect((error as IngestorError).code).toBe('ILLEGAL_TRANSITION');
    expect((error as Error).message).toContain(`'${event.type}' in state '${state}'`);
    return X;
  }
}

describe('feed connection transition table', () => {
  it('covers every state', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...CONNECTION_STATES].sort());
  });

  for (const state of CONNECTION_STATES) {
    for (const [name, event] of Object.entries(EVENTS)) {
      it(`${state} x ${name} -> ${TABLE[state][name] || '(no change)'}`, () => {
        expect(describeStep(state, event)).toBe(TABLE[state][name]);
      });
    }
  }

  it('names what the state is entered for', () => {
    expect(connectionTransition('connecting', EVENTS['closed fatal'] as ConnectionEvent).reason).toBe(
      'the client id is invalid (810)',
    );
    expect(connectionTransition('open', EVENTS.stale as ConnectionEvent).reason).toBe(
      'no ping or data for 45000 ms',
    );
    expect(connectionTransition('idle', { type: 'ticket-granted', reconnect: true }).reason).toBe(
      'reconnecting',
    );
    expect(connectionTransition('idle', EVENTS['ticket-denied'] as ConnectionEvent).reason).toBe(
      'waiting for the connection-attempt budget',
    );
  });

  it('passes the verdict on to the actions', () => {
    const blocked = connectionTransition('connecting', EVENTS['closed blocked'] as ConnectionEvent);
    expect(blocked.actions).toContainEqual({ type: 'fail-attempt', blocked: true });
    expect(blocked.actions).toContainEqual({ type: 'schedule-retry', cause: 'blocked' });
    const token = connectionTransition('open', EVENTS['closed token'] as ConnectionEvent);
    expect(token.reason).toBe('the token was refused (807); waiting for a renewed token');
    // Without a renewal path the same close is fatal, as before renewal existed.
    const unrenewable = connectionTransition('open', {
      ...(EVENTS['closed token'] as ConnectionEvent),
      renewable: false,
    } as ConnectionEvent);
    expect(unrenewable.next).toBe('fatal');
    expect(connectionTransition('open', { type: 'error-packet', code: 807 }).next).toBe('fatal');
    const evicted = connectionTransition('open', EVENTS['closed evicted'] as ConnectionEvent);
    expect(evicted.actions).toContainEqual({ type: 'schedule-retry', cause: 'evicted' });
    const transient = connectionTransition('open', EVENTS['closed transient'] as ConnectionEvent);
    expect(transient.actions).toContainEqual({ type: 'fail-attempt', blocked: false });
    expect(transient.actions).toContainEqual({ type: 'schedule-retry', cause: 'transient' });
    expect(connectionTransition('backoff', EVENTS['ticket-denied'] as ConnectionEvent).actions).toEqual([
      { type: 'schedule-retry', cause: 'budget' },
    ]);
    expect(connectionTransition('open', { type: 'ping' }).actions).toContainEqual({
      type: 'prove-attempt',
      onlyIfClean: true,
    });
  });

  it('a drained close (a reconnect asked for) begins the next attempt at once, unless something failed first', () => {
    const drained = {
      type: 'closed',
      failure: { kind: 'closed', code: 1000 },
      opened: true,
      drained: true,
    } as const;
    expect(describeStep('open', drained)).toBe(
      'fail-attempt release-socket count-reconnect reset-backoff begin-attempt',
    );
    // The server refused the old token while the socket drained: the renewal path decides.
    const refused = connectionTransition('open', {
      ...drained,
      failure: { kind: 'error-packet', code: 807 },
      renewable: true,
    });
    expect(refused.next).toBe('renewing');
    expect(refused.actions.map((a) => a.type)).not.toContain('begin-attempt');
    // Stopped meanwhile: the close only settles.
    expect(describeStep('stopped', drained)).toBe('fail-attempt release-socket');
    expect(describeStep('fatal', drained)).toBe('fail-attempt release-socket');
  });
});
