/**
 * Each slot the limiter grants, published on a diagnostics channel (as undici publishes its
 * requests): a benchmark or a profiler can see when a call asked for its slot, when the limiter
 * found the slot free and when it granted it, without the limiter knowing who listens. Publishing
 * costs nothing while nobody subscribes.
 */
import { channel } from 'node:diagnostics_channel';
import type { RateCategory } from './categories.js';

export const RATE_GRANT_CHANNEL = 'feedpipe:broker-api:rate-grant';

export interface RateGrantEvent {
  readonly category: RateCategory;
  readonly route: string;
  /** When the call asked for its slot (epoch ms of the limiter's clock). */
  readonly askedAt: number;
  /** The last time the limiter waited for (the slot's free time as it computed it); askedAt if it never waited. */
  readonly dueAt: number;
  /** When the slot was granted. */
  readonly grantedAt: number;
}

const grants = channel(RATE_GRANT_CHANNEL);

export function publishGrant(event: RateGrantEvent): void {
  if (grants.hasSubscribers) grants.publish(event);
}
