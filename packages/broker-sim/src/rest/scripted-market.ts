/**
 * A market source whose last prices a test can set: wraps a real model and overrides the LTP of
 * chosen instruments (open, previous close and circuit band centre on the first pinned price). Lets order tests cross a limit, touch a
 * trigger or hold a price still, deterministically.
 */
import type { MarketSource, SimInstrument, SimQuote } from './market-source.js';

export class ScriptedMarket implements MarketSource {
  private readonly ltps = new Map<number, number>();
  /** The first pinned price of an instrument: its day's open, previous close and circuit centre. */
  private readonly anchors = new Map<number, number>();
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
    if (ltp === undefined) {
      this.ltps.delete(securityId);
      this.anchors.delete(securityId);
      return;
    }
    this.ltps.set(securityId, ltp);
    if (!this.anchors.has(securityId)) this.anchors.set(securityId, ltp);
  }
  setSession(session: 'PRE_OPEN' | 'OPEN' | 'CLOSED' | undefined): void {
    this.sessionOverride = session;
  }
  quote(securityId: number): SimQuote | undefined {
    const q = this.base.quote(securityId);
    const ltp = this.ltps.get(securityId);
    if (!q || ltp === undefined) return q;
    const anchor = this.anchors.get(securityId) ?? ltp;
    return {
      ...q,
      ltp,
      open: anchor,
      prevClose: anchor,
      high: Math.max(anchor, ltp),
      low: Math.min(anchor, ltp),
      upperCircuit: Math.round(anchor * 1.2 * 20) / 20,
      lowerCircuit: Math.round(anchor * 0.8 * 20) / 20,
    };
  }
  session(): 'PRE_OPEN' | 'OPEN' | 'CLOSED' {
    return this.sessionOverride ?? this.base.session();
  }
}
