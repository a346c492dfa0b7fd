import type { RateCategory, WindowLimit } from './categories.js';

/**
 * The grants of a rate category kept where every process of the account sees them, so processes
 * that share one account's budget (the quote poller and the trading gateway in compose) pace as
 * one. The limiter of each process asks here after its own lane has a slot; a port, so the limiter
 * stays free of files and locks (packages/credentials' `FileRateSlots` keeps them beside the token
 * lease). Only categories counted from the send are shared: a grant is one point in time.
 */
export interface SharedSlots {
  /** The categories whose grants are shared. */
  readonly categories: readonly RateCategory[];
  /**
   * Takes a slot of `category` at `now` if the grants of every process leave one in each window
   * (plus `marginMs` after a full window). Otherwise nothing is taken and `retryAt` says when one
   * may be free; the caller sleeps until then and asks again.
   */
  claim(category: RateCategory, limits: readonly WindowLimit[], now: number, marginMs: number): SlotClaim;
  /** The request granted `ticket` left at `time` (later than its grant): other processes see it. */
  moveLater(ticket: SlotTicket, time: number): void;
}

/** One granted slot, to move it later once its request has really left. */
export interface SlotTicket {
  readonly category: RateCategory;
  readonly grantedAt: number;
  readonly id: number;
}

export type SlotClaim =
  | { readonly granted: true; readonly ticket: SlotTicket }
  | { readonly granted: false; readonly retryAt: number };
