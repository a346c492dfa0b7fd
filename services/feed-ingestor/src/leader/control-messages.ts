/**
 * What the ingestor processes of one client id tell each other on their control topic (the same
 * one-partition topic whose group membership decides the leader, leader/ingestor-leadership.ts).
 * One partition gives every reader the same order, so "the first claim wins" needs no arbiter.
 *
 * - alive: the leader, every second; a standby that takes over dates the failover gap from it.
 * - handover-offer: the leader is stopping and offers its connections, oldest first, with what
 *   each holds (the successor subscribes exactly that on the same connection number); `spare` when
 *   the client id has a free connection slot, so each new connection opens before the old closes.
 * - handover-claim: a standby takes the offer; the first claim in the log is the one.
 * - handover-ready: the successor's connection is live (its first frame came).
 * - handover-closed: the leader closed its connection (spare: after the successor's was ready;
 *   otherwise first, and the successor opens its own on this message).
 * - handover-cut: Kafka acknowledged everything the leader read on the connection; `last` is each
 *   instrument's last trade produced, so the successor produces only what comes after it; `bases`
 *   the connection's quantity bases (pipeline/quantity-bases.ts), which the successor's trades'
 *   quantities are reckoned from (absent from a leader of an earlier version: none known then).
 * - handover-done / handover-abort: the end of the handover.
 * - overrides: the leader's subscription changes made while running (its ops route, its universe
 *   file), sent on every change and every few seconds; standbys keep them, so the one that leads
 *   next subscribes the same.
 */
import type { BaseEntry } from '../pipeline/quantity-bases.js';
import type { Overrides } from '../subscriptions/subscription-plan.js';

export interface HandoverConnection {
  index: number;
  trade: string[];
  ohlc: string[];
}

export type ControlMessage =
  | { type: 'alive'; member: string; run: number; atMs: number }
  | { type: 'overrides'; member: string; overrides: Overrides }
  | {
      type: 'handover-offer';
      id: string;
      from: string;
      spare: boolean;
      connections: HandoverConnection[];
    }
  | { type: 'handover-claim'; id: string; by: string }
  | { type: 'handover-ready'; id: string; connection: number; liveAtMs: number }
  | { type: 'handover-closed'; id: string; connection: number; closedAtMs: number }
  | {
      type: 'handover-cut';
      id: string;
      connection: number;
      /** [securityId, cumulative volume, last trade time] of each instrument that traded. */
      last: Array<[number, number, number]>;
      /** [securityId, trade day, cumulative volume, firmFrom day]: the connection's quantity bases. */
      bases?: BaseEntry[];
    }
  | { type: 'handover-done'; id: string }
  | { type: 'handover-abort'; id: string; why: string };

const TYPES = new Set<ControlMessage['type']>([
  'alive',
  'overrides',
  'handover-offer',
  'handover-claim',
  'handover-ready',
  'handover-closed',
  'handover-cut',
  'handover-done',
  'handover-abort',
]);

/** The message, or undefined for anything else on the topic (another version, or not ours). */
export function parseControlMessage(value: Buffer | null | undefined): ControlMessage | undefined {
  if (!value) return undefined;
  try {
    const message = JSON.parse(value.toString('utf8')) as { type?: unknown };
    return typeof message?.type === 'string' && TYPES.has(message.type as ControlMessage['type'])
      ? (message as ControlMessage)
      : undefined;
  } catch {
    return undefined;
  }
}
