/**
 * The account's shared parts, offered to a child process by `npm start`: its one access token
 * (renewed by the parent, one renewal per account: the simulator, like the service, ends the
 * previous token at once, so a second renewer in the child would cut the parent's) and its one
 * rate limiter (the quote category's 1 request/s is shared by the quote poller in the parent and
 * the gateway's quote calls). The account keeps one of each however its services are spread over
 * processes, at as few crossings as that allows: each crossing waits for a turn of the parent's
 * event loop, which npm start's pipeline keeps busy (bench:flood saw 100-600 ms per turn).
 * - the token: the parent tells the child each new one as it is renewed (the child asks only for
 *   the first, and on a refusal, which renews in the parent);
 * - the limiter: only the categories the parent's parts also use (SHARED_CATEGORIES) take their
 *   slot from the parent's limiter; the others are the child's alone and paced by its own windows.
 */
import {
  RateLimiter as LocalRateLimiter,
  type RateLimiter,
  type Release,
  type TokenSource,
} from '@feedpipe/broker-api';
import type { CallChannel } from './calls.js';

type Category = Parameters<RateLimiter['acquire']>[0];

/**
 * The categories the parent also calls in (the quote poller's quotes): their windows must be
 * counted in one place. Orders, account and data calls come from the gateway alone under npm
 * start (the history loader paces its data calls with a limiter of its own).
 */
export const SHARED_CATEGORIES: readonly Category[] = ['quote'];

/** The account's token source as the parent holds it: renewed there, its changes announced. */
export interface AccountTokens extends Required<TokenSource> {
  onChange(listener: (token: string) => void): () => void;
}

/** Most slots a child may hold at once: a child that leaks releases cannot starve the parent. */
const MAX_HELD_SLOTS = 1_000;

/**
 * Serves the token and the limiter to the child at the other end of `channel` (parent side).
 * `releaseAll` gives back every slot the child still held, for when it has died: a slot that
 * counts from its request's end would otherwise stay in flight and block its category for good.
 */
export function offerAccount(
  channel: CallChannel,
  tokens: AccountTokens,
  limiter: RateLimiter | undefined,
): { releaseAll(): void } {
  channel.handle('token.get', () => tokens.getToken());
  channel.handle('token.rejected', (rejected: string) => tokens.tokenRejected(rejected));
  const unsubscribe = tokens.onChange((token) => {
    channel.call('token.changed', token).catch(() => undefined);
  });
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
      unsubscribe();
      for (const release of held.values()) release();
      held.clear();
    },
  };
}

/** The account's token, as the parent holds it (child side): kept here as the parent announces it. */
export function parentTokens(channel: CallChannel): TokenSource {
  let current: string | undefined;
  channel.handle('token.changed', (token: string) => {
    current = token;
  });
  const adopt = (token: string) => {
    current = token;
    return token;
  };
  return {
    getToken: async () => current ?? adopt(await channel.call<string>('token.get')),
    tokenRejected: async (rejected: string) => adopt(await channel.call<string>('token.rejected', rejected)),
  };
}

/**
 * The account's limiter in the child: a slot of a shared category is granted by the parent's
 * limiter, any other by this one's own windows (a RateLimiter, because the typed client takes one).
 */
export class ParentPacedLimiter extends LocalRateLimiter {
  readonly #channel: CallChannel;

  constructor(channel: CallChannel) {
    super();
    this.#channel = channel;
  }

  override async acquire(category: Category, route: string, signal?: AbortSignal): Promise<Release> {
    if (!SHARED_CATEGORIES.includes(category)) return super.acquire(category, route, signal);
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
    if (!SHARED_CATEGORIES.includes(category)) super.markSent(category, time);
    else this.#channel.call('limiter.markSent', category, time).catch(() => undefined);
  }
}
