/**
 * Applying a parsed client request (15/16/17/18/12) to a connection. A subscribe request that would
 * take the connection over its subscription limit is refused as a whole, so a client never ends up
 * with an arbitrary subset.
 */
import { type ClientRequest, RequestCode } from '@feedpipe/codec';
import type { MarketModel } from '../market/model.js';
import type { FeedConnection } from './connection.js';
import type { FeedCounters } from './feed-counters.js';
import type { FeedGenerator } from './generator.js';
import { appendOhlc, appendTradeSnapshot } from './packets.js';
import type { SubscriptionBook, SubscriptionKind } from './subscription-book.js';

export type RequestOutcome = { kind: 'ok' } | { kind: 'disconnect' } | { kind: 'refuse'; reason: string };

export interface RequestContext {
  model: MarketModel;
  book: SubscriptionBook;
  counters: FeedCounters;
  generator: FeedGenerator;
  maxSubscriptions: number;
}

/** Universe indices of the request's INX_EQ instruments, without duplicates; unknown ids are counted and ignored. */
function resolveIndices(ctx: RequestContext, request: ClientRequest): number[] {
  if (request.requestCode === RequestCode.Disconnect) return [];
  const indices: number[] = [];
  const seen = new Set<number>();
  for (const ref of request.instrumentList) {
    const i = ctx.model.indexOf(Number(ref.securityId));
    if (i < 0 || ctx.model.instrumentAt(i)?.exchangeSegment !== 'INX_EQ') {
      ctx.counters.unknownInstruments++;
      continue;
    }
    if (!seen.has(i)) {
      seen.add(i);
      indices.push(i);
    }
  }
  return indices;
}

function subscribe(
  ctx: RequestContext,
  c: FeedConnection,
  indices: number[],
  kind: SubscriptionKind,
): RequestOutcome {
  const own = kind === 'trade' ? c.tradeSubs : c.ohlcSubs;
  let added = 0;
  for (const i of indices) if (!own.has(i)) added++;
  if (c.subscriptionCount + added > ctx.maxSubscriptions) {
    return {
      kind: 'refuse',
      reason: `subscription limit: ${c.subscriptionCount} + ${added} would exceed ${ctx.maxSubscriptions} per connection`,
    };
  }
  ctx.generator.touch(c);
  for (const i of indices) {
    ctx.book.add(c, i, kind);
    // A repeated subscribe gets the snapshot again, as a fresh one would.
    if (kind === 'trade') {
      c.reserve(4);
      appendTradeSnapshot(c, ctx.model, ctx.counters, i);
      // With fresh trades on, the instrument trades at once, right behind its snapshot.
      ctx.generator.subscribedTrade(i, ctx.model.now());
    } else {
      c.reserve(1);
      appendOhlc(c, ctx.model, ctx.counters, i);
    }
  }
  ctx.generator.finish();
  return { kind: 'ok' };
}

export function applyRequest(ctx: RequestContext, c: FeedConnection, request: ClientRequest): RequestOutcome {
  switch (request.requestCode) {
    case RequestCode.Disconnect:
      return { kind: 'disconnect' };
    case RequestCode.SubscribeTrade:
      return subscribe(ctx, c, resolveIndices(ctx, request), 'trade');
    case RequestCode.SubscribeOhlc:
      return subscribe(ctx, c, resolveIndices(ctx, request), 'ohlc');
    case RequestCode.UnsubscribeTrade:
      for (const i of resolveIndices(ctx, request)) ctx.book.remove(c, i, 'trade');
      return { kind: 'ok' };
    case RequestCode.UnsubscribeOhlc:
      for (const i of resolveIndices(ctx, request)) ctx.book.remove(c, i, 'ohlc');
      return { kind: 'ok' };
  }
}
