/**
 * Readiness of the ingestor: ready means market data is flowing, not merely that a socket is open.
 * A connection that holds subscriptions but has delivered no market data for `silentAfterMs` while
 * the market is open (or its state is unknown) is reported with the reason; so is a fatal verdict
 * and a pool with no open connection.
 *
 * "Market open" comes from the feed's own Market Status packets (spec: Binary packets, rule 3: they
 * are pushed at session changes). The spec leaves the MarketStatus values unnamed; the simulator and
 * this pipeline read 0 as closed, 1 as pre-open and 2 as open, and only open has trades. Before the
 * first Market Status the state is unknown and silence counts: the check cannot tell a closed
 * market from a dead feed, and saying "not ready" with the reason is the honest answer.
 */
import type { ConnectionSnapshot } from './feed/connection-pool.js';

export const MARKET_STATUS_OPEN = 2;

export type MarketState = 'open' | 'closed' | 'unknown';

export function marketStateOf(status: number | undefined): MarketState {
  if (status === undefined) return 'unknown';
  return status === MARKET_STATUS_OPEN ? 'open' : 'closed';
}

export interface FeedReadinessInput {
  fatal: string | undefined;
  connections: readonly ConnectionSnapshot[];
  /** The last MarketStatus value seen on the feed, undefined before the first. */
  marketStatus: number | undefined;
  /** Epoch ms the ingestor started (its first connection attempts). */
  startedAt: number;
  now: number;
  /** Silence tolerated, ms; 0 turns the silence check off. */
  silentAfterMs: number;
}

export interface FeedReadiness {
  ready: boolean;
  /** Why not ready; empty when ready. */
  reasons: string[];
  market: MarketState;
}

export function assessFeedReadiness(input: FeedReadinessInput): FeedReadiness {
  const reasons: string[] = [];
  const market = marketStateOf(input.marketStatus);
  if (input.fatal !== undefined) reasons.push(`fatal: ${input.fatal}`);
  if (!input.connections.some((c) => c.state === 'open')) reasons.push('no feed connection is open');
  if (input.silentAfterMs > 0 && market !== 'closed') {
    for (const c of input.connections) {
      if (c.trade + c.ohlc === 0) continue;
      // A connection just (re)opened gets the whole allowance before its silence counts.
      const since = Math.max(c.lastDataAt, input.startedAt, c.state === 'open' ? c.stateSince : 0);
      const quietMs = input.now - since;
      if (quietMs <= input.silentAfterMs) continue;
      const what = c.state === 'open' ? 'open but' : `${c.state},`;
      reasons.push(
        `connection ${c.index} ${what} no market data for ${Math.round(quietMs / 1000)} s ` +
          `(${c.trade + c.ohlc} subscriptions; market ${market === 'open' ? 'open' : 'status unknown'})`,
      );
    }
  }
  return { ready: reasons.length === 0, reasons, market };
}
