/**
 * A market source whose last prices a test can set: wraps a real model and overrides the LTP of
 * chosen instruments (high/low widen to include it). Lets order tests cross a limit, touch a
 * trigger or hold a price still, deterministically.
 */
import type { MarketSource, SimInstrument, SimQuote } from './market-source.js';

export class ScriptedMarket implements MarketSource {
  private readonly ltps = new Map<number, number>();
  private sessionOverride: 'PRE_OPEN' | 'OPEN' | 'CLOSED' | undefined;
  constructor(private readonly base: MarketSource) {}

  get seed(): number {
    return this.base.seed;
  }
  get universe(): readonly SimInstrument[] {
    return this.base.universe;
  }
  instrument(securityId: number): SimInstrument | undefined {
    return this.base.instrument(securityId);
  }
  /** Pins the LTP of an instrument until cleared with `undefined`. */
  setLtp(securityId: number, ltp: number | undefined): void {
    if (ltp === undefined) this.ltps.delete(securityId);
    else this.ltps.set(securityId, ltp);
  }
  setSession(session: 'PRE_OPEN' | 'OPEN' | 'CLOSED' | undefined): void {
    this.sessionOverride = session;
  }
  quote(securityId: number): SimQuote | undefined {
    const q = this.base.quote(securityId);
    const ltp = this.ltps.get(securityId);
    if (!q || ltp === undefined) return q;
    return { ...q, ltp, high: Math.max(q.high, ltp), low: Math.min(q.low, ltp) };
  }
  session(): 'PRE_OPEN' | 'OPEN' | 'CLOSED' {
    return this.sessionOverride ?? this.base.session();
  }
}
