/**
 * How late bench:quotes' requests left against when their slot was due, and where the time went.
 * A slot is due a window plus the margin after the request before it left (either process's), so
 * at 1 request a second every millisecond of lateness is rate given up: 99% leaves ~2 ms a request
 * beyond the 8 ms margin. Each send's lateness is split into the stages it passed through:
 *   asked    the request was asked for after its slot was due (the poller still busy with the last)
 *   held     the limiter's own due time was later than the previous send says (a slot moved later,
 *            a waiter of the other process served first)
 *   granted  from the due time (or the ask, or the limiter's due, the latest) to the grant: the
 *            timer's lateness and the shared slot claim
 *   written  from the grant to the write on the socket: the queue, the token, fetch, undici
 */
import type { QuoteSend } from './quote-sends.js';

export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

/** The q-quantile of ascending values (0: the least, 1: the greatest); 0 for none. */
export function quantile(ascending: readonly number[], q: number): number {
  const i = Math.min(ascending.length - 1, Math.floor(q * ascending.length));
  return Number((ascending[i] ?? 0).toFixed(2));
}

export function spread(values: readonly number[]): Spread {
  const ascending = [...values].sort((a, b) => a - b);
  return { p50: quantile(ascending, 0.5), p99: quantile(ascending, 0.99), max: quantile(ascending, 1) };
}

export interface Lateness {
  lateMs: Spread;
  /** Sum of every send's lateness: what the rate lost beyond the margin. */
  lateTotalMs: number;
  stagesMs: { asked: Spread; held: Spread; granted: Spread; written: Spread };
}

/** `sends` in the order they left, both processes'. */
export function sendLateness(sends: readonly QuoteSend[], windowMs: number, marginMs: number): Lateness {
  const late: number[] = [];
  const asked: number[] = [];
  const held: number[] = [];
  const granted: number[] = [];
  const written: number[] = [];
  for (let i = 1; i < sends.length; i++) {
    const s = sends[i];
    const previous = sends[i - 1];
    if (s === undefined || previous === undefined) continue;
    const due = previous.sentAt + windowMs + marginMs;
    late.push(s.sentAt - due);
    asked.push(Math.max(0, s.askedAt - due));
    held.push(Math.max(0, s.dueAt - Math.max(due, s.askedAt)));
    granted.push(s.grantedAt - Math.max(due, s.askedAt, s.dueAt));
    written.push(s.sentAt - s.grantedAt);
  }
  return {
    lateMs: spread(late),
    lateTotalMs: late.reduce((a, b) => a + b, 0),
    stagesMs: {
      asked: spread(asked),
      held: spread(held),
      granted: spread(granted),
      written: spread(written),
    },
  };
}
