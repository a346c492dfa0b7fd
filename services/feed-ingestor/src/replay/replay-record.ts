/** What a replay source hands on: records of one receive time, each with its source identity. */
import type { FeedRecord, SourceIdentity } from '@feedpipe/contracts';

export interface ReplayRecord {
  record: FeedRecord;
  identity: SourceIdentity;
}

/** The records received at one instant (one frame of a capture, or one microsecond of the store). */
export interface ReplayGroup {
  receivedAtMicros: number;
  records: ReplayRecord[];
}

/** What a source read, beside the groups it yields. */
export interface ReplaySourceCounts {
  /** Frames (capture) or time groups (store) read, in the range or not. */
  read: number;
  /** Those outside the time range. */
  outOfRange: number;
  /** Packets that were not valid records (a capture's malformed or unknown packets): counted, skipped. */
  malformed: number;
  /** Trades that repeat the instrument's previous trade (a resubscription's snapshot), not replayed. */
  repeats: number;
}

export function newSourceCounts(): ReplaySourceCounts {
  return { read: 0, outOfRange: 0, malformed: 0, repeats: 0 };
}

/** Instruments remembered for the repeat rule; beyond this the memory starts over (a hostile id stream). */
const MAX_REMEMBERED = 1_000_000;

/**
 * The live ingestor's repeat rule (pipeline/chunk-encoder.ts): a trade with the same cumulative
 * volume and trade time as the instrument's previous trade is that trade sent again (the feed
 * answers each resubscription with the last trade) and is not produced.
 */
export class RepeatedTrades {
  readonly #last = new Map<number, { volume: number; ltt: number }>();

  isRepeat(record: FeedRecord): boolean {
    if (record.type !== 'trade') return false;
    const previous = this.#last.get(record.securityId);
    if (previous !== undefined && previous.volume === record.volume && previous.ltt === record.ltt)
      return true;
    if (previous !== undefined) {
      previous.volume = record.volume;
      previous.ltt = record.ltt;
    } else {
      if (this.#last.size >= MAX_REMEMBERED) this.#last.clear();
      this.#last.set(record.securityId, { volume: record.volume, ltt: record.ltt });
    }
    return false;
  }
}
