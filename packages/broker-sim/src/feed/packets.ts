/**
 * Appending one instrument's packets to a connection's frame, from the model's current state. All
 * bytes are written by @feedpipe/codec's FrameBuilder.
 */
import { SEGMENT_INX_EQ } from '@feedpipe/codec';
import type { MarketModel } from '../market/model.js';
import type { FeedConnection } from './connection.js';
import type { FeedCounters } from './feed-counters.js';

export function appendTrade(c: FeedConnection, model: MarketModel, counters: FeedCounters, i: number): void {
  const volume = model.volumeAt(i);
  const tradeTime = model.lastTradeTimeAt(i);
  c.builder.trade(
    SEGMENT_INX_EQ,
    model.securityIdAt(i),
    model.ltpAt(i),
    volume,
    tradeTime,
    model.lastUpdateTimeAt(i),
  );
  counters.countTrade(i, volume, tradeTime);
}

/** OHLC of the day so far; `close` is the last traded price (the previous close has its own packet). */
export function appendOhlc(c: FeedConnection, model: MarketModel, counters: FeedCounters, i: number): void {
  c.builder.ohlc(
    SEGMENT_INX_EQ,
    model.securityIdAt(i),
    model.openAt(i),
    model.ltpAt(i),
    model.highAt(i),
    model.lowAt(i),
  );
  counters.ohlc[i] = (counters.ohlc[i] ?? 0) + 1;
}

/** Circuit Limit and 52-Week with real values. */
export function appendReference(
  c: FeedConnection,
  model: MarketModel,
  counters: FeedCounters,
  i: number,
): void {
  const id = model.securityIdAt(i);
  c.builder.circuitLimit(SEGMENT_INX_EQ, id, model.upperCircuitAt(i), model.lowerCircuitAt(i));
  c.builder.week52(SEGMENT_INX_EQ, id, model.week52HighAt(i), model.week52LowAt(i));
  counters.reference[i] = (counters.reference[i] ?? 0) + 2;
}

/**
 * The Subscribe Trade sequence of the spec: Trade, Previous Close, Circuit Limit, 52-Week. Where the
 * model has no reference values yet, the last two go out zero-filled with security id 0 and the
 * instrument waits in `pendingReference` for the real ones.
 */
export function appendTradeSnapshot(
  c: FeedConnection,
  model: MarketModel,
  counters: FeedCounters,
  i: number,
): void {
  appendTrade(c, model, counters, i);
  c.builder.prevClose(SEGMENT_INX_EQ, model.securityIdAt(i), model.prevCloseAt(i));
  counters.reference[i] = (counters.reference[i] ?? 0) + 1;
  if (model.hasReference(i)) {
    appendReference(c, model, counters, i);
    return;
  }
  c.builder.circuitLimit(SEGMENT_INX_EQ, 0, 0, 0);
  c.builder.week52(SEGMENT_INX_EQ, 0, 0, 0);
  counters.zeroFilled += 2;
  c.pendingReference.add(i);
}
