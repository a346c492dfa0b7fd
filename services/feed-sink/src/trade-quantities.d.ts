import type { StoreLane } from '@feedpipe/store';
export declare class TradeQuantities {
  #private;
  /** `disagreed`: told of each trade whose published quantity differs from the one reckoned here. */
  constructor(disagreed?: () => void);
  /**
   * The quantity of the next trade of `securityId` (unsigned) at trade time `ltt` (epoch seconds,
   * not negative) with cumulative day volume `volume`; it becomes the predecessor of the next one.
   * `published`: the quantity its record carries, if any (checked, not taken).
   */
  next(securityId: number, ltt: number, volume: number, published?: number): number;
  /**
   * Replaces the state with the store's: the last stored trade of every instrument on each day,
   * among the trades received from LOOKBACK_SECONDS before the newest stored trade of the partition
   * that is furthest behind (this Kafka cluster's; of any, when it has none). Relative to the data,
   * not the clock, so a sink that resumes after days away, or replays a restored store's tail,
   * finds the predecessors of what it reads next. Call it with nothing buffered that the store
   * does not hold (at a start, or after a flush when partitions were assigned).
   */
  load(lane: StoreLane, clusterId: string): Promise<number>;
  /** Instruments held. */
  get size(): number;
}
//# sourceMappingURL=trade-quantities.d.ts.map
