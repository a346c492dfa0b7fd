/**
 * The account's shared parts, offered to a child process by `npm start`: its one access token
 * (renewed by the parent, one renewal per account: the simulator, like the service, ends the
 * previous token at once, so a second renewer in the child would cut the parent's) and its one
 * rate limiter (the quote category's 1 request/s is shared by the quote poller in the parent and
 * the gateway's quote calls). The child's token source and limiter ask the parent for each token
 * and each slot, so the account keeps one of each however its services are spread over processes.
 */
import {
  RateLimiter as LocalRateLimiter,
  type RateLimiter,
  type Release,
  type TokenSource,
} from '@feedpipe/broker-api';
import type { CallChannel } from './calls.js';

type Category = Parameters<RateLimiter['acquire']>[0];

/** Most slots a child may hold at once: a child that leaks releases cannot starve the parent. */
const MAX_HELD_SLOTS = 1_000;

/**
 * Serves the token and the limiter to the child at the other end of `channel` (parent side).
 * `releaseAll` gives back every slot the child still held, for when it has died: a slot that
 * counts from its request's end would otherwise stay in flight and block its category for good.
 */
export function offerAccount(
  channel: CallChannel,
  tokens: Required<TokenSource>,
  limiter: RateLimiter | undefined,
): { releaseAll(): void } {
  channel.handle('token.get', () => tokens.getToken());
  channel.handle('token.rejected', (rejected: string) => tokens.tokenRejected(rejected));
  const held = new Map<number, Release>();
  let nextSlot = 1;
  if (limiter) {
    channel.handle('limiter.acquire', async (category: Category, route: string) => {
      if (held.size >= MAX_HELD_SLOTS)
        throw new Error(`the child holds ${MAX_HELD_SLOTS} rate slots already`);
      const release = await limiter.acquire(category, route);
      const slot = nextSlot++;
      held.set(slot, release);
      return slot;
    });
    channel.handle('limiter.release', (slot: number) => {
      held.get(slot)?.();
      held.delete(slot);
    });
    channel.handle('limiter.markSent', (category: Category, time: number) =>
      limiter.markSent(category, time),
    );
  }
  return {
    releaseAll: () => {
      for (const release of held.values()) release();
      held.clear();
    },
  };
}

/** The account's token, as the parent holds it (child side). */
export function parentTokens(channel: CallChannel): TokenSource {
  return {
    getToken: () => channel.call<string>('token.get'),
    tokenRejected: (rejected: string) => channel.call<string>('token.rejected', rejected),
  };
}

/**
 * The account's limiter, as the parent holds it (child side): every slot is granted by the
 * parent's limiter. A RateLimiter, because the typed client takes one; its own windows stay unused
 * (only the modification count per order is kept here: the gateway is the only part modifying).
 */
export class ParentPacedLimiter extends LocalRateLimiter {
  readonly #channel: CallChannel;

  constructor(channel: CallChannel) {
    super();
    this.#channel = channel;
  }

  override async acquire(category: Category, route: string, signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    const slot = await this.#channel.call<number>('limiter.acquire', category, route);
    let released = false;
    const release: Release = () => {
      if (released) return;
      released = true;
      this.#channel.call('limiter.release', slot).catch(() => undefined);
    };
    // Given up while the parent waited for the slot: hand it straight back.
    if (signal?.aborted) {
      release();
      signal.throwIfAborted();
    }
    return release;
  }

  override markSent(category: Category, time: number): void {
    this.#channel.call('limiter.markSent', category, time).catch(() => undefined);
  }
}
