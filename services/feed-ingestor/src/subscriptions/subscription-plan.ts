/**
 * What the ingestor should be subscribed to: the universe (the configured instruments, or the
 * watched universe file's latest content) with the changes made through the ops route on top of it.
 * The route's changes are kept as overrides relative to the universe (added: not in it, removed: in
 * it), so they survive a restart (overrides-file.ts) and a universe that grows later still takes
 * effect. An edit of the universe file is the latest word on the instruments it adds or drops: their
 * overrides are forgotten. Pure: no pool, no file, no clock.
 */
import type { SubscriptionKind } from '../feed/subscription-book.js';

export interface KindOverrides {
  added: string[];
  removed: string[];
}

export type Overrides = Record<SubscriptionKind, KindOverrides>;

/** A change to apply to the subscriptions of one kind. */
export interface SubscriptionDiff {
  add: string[];
  remove: string[];
}

interface KindPlan {
  universe: Set<string>;
  added: Set<string>;
  removed: Set<string>;
}

export const NO_OVERRIDES: Overrides = Object.freeze({
  trade: { added: [], removed: [] },
  ohlc: { added: [], removed: [] },
});

export class SubscriptionPlan {
  readonly #kinds: Record<SubscriptionKind, KindPlan>;

  constructor(universe: Record<SubscriptionKind, readonly string[]>, overrides: Overrides = NO_OVERRIDES) {
    const plan = (kind: SubscriptionKind): KindPlan => ({
      universe: new Set(universe[kind]),
      added: new Set(overrides[kind].added),
      removed: new Set(overrides[kind].removed),
    });
    this.#kinds = { trade: plan('trade'), ohlc: plan('ohlc') };
  }

  /** Every instrument of the kind to subscribe: the universe, plus the added, minus the removed. */
  effective(kind: SubscriptionKind): string[] {
    const k = this.#kinds[kind];
    const out = [...k.universe].filter((id) => !k.removed.has(id));
    for (const id of k.added) if (!k.universe.has(id)) out.push(id);
    return out;
  }

  /** A change asked for through the route: kept as overrides; returns what changes in effect. */
  change(kind: SubscriptionKind, add: readonly string[], remove: readonly string[]): SubscriptionDiff {
    const before = new Set(this.effective(kind));
    const k = this.#kinds[kind];
    for (const id of remove) {
      k.added.delete(id);
      if (k.universe.has(id)) k.removed.add(id);
    }
    for (const id of add) {
      k.removed.delete(id);
      if (!k.universe.has(id)) k.added.add(id);
    }
    return diffOf(before, this.effective(kind));
  }

  /** The universe's new content: overrides of the instruments it adds or drops are forgotten. */
  setUniverse(kind: SubscriptionKind, ids: readonly string[]): SubscriptionDiff {
    const before = new Set(this.effective(kind));
    const k = this.#kinds[kind];
    const next = new Set(ids);
    for (const id of next) if (!k.universe.has(id)) k.removed.delete(id);
    for (const id of k.universe) if (!next.has(id)) k.added.delete(id);
    for (const id of next) k.added.delete(id);
    k.universe = next;
    return diffOf(before, this.effective(kind));
  }

  /** An independent copy: a change tried on it leaves this plan as it was. */
  copy(): SubscriptionPlan {
    return this.withOverrides(this.overrides());
  }

  /** The same universe with other overrides (a standby taking its leader's). */
  withOverrides(overrides: Overrides): SubscriptionPlan {
    return new SubscriptionPlan(
      { trade: [...this.#kinds.trade.universe], ohlc: [...this.#kinds.ohlc.universe] },
      overrides,
    );
  }

  overrides(): Overrides {
    const of = (kind: SubscriptionKind): KindOverrides => ({
      added: [...this.#kinds[kind].added],
      removed: [...this.#kinds[kind].removed],
    });
    return { trade: of('trade'), ohlc: of('ohlc') };
  }
}

function diffOf(before: ReadonlySet<string>, after: readonly string[]): SubscriptionDiff {
  const afterSet = new Set(after);
  return {
    add: after.filter((id) => !before.has(id)),
    remove: [...before].filter((id) => !afterSet.has(id)),
  };
}
