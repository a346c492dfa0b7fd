/**
 * Option chains priced by Black-Scholes on the volatility smile, with deterministic OI and volume.
 * Strikes: ATM +- STRIKES_EACH_SIDE steps around spot. Security ids of contracts are deterministic
 * hashes of (seed, underlying, expiry, strike, side), kept in a bounded registry so market
 * snapshots can quote them.
 */
import type { SimInstrument } from '../rest/market-source.js';
import { blackScholes, smileVol } from './black-scholes.js';
import { DAY_S, istMidnight } from './calendar.js';
import { toTick } from './day-bars.js';
import { strikeStep } from './expiries.js';
import { Lru } from './lru.js';
import { hashKeys, uniformOf } from './random.js';

export const STRIKES_EACH_SIDE = 20;
const OPTION_TICK = 0.05;
const YEAR_S = 365 * DAY_S;
/** Expiry instant: 15:30 IST of the expiry day. */
export const expiryInstant = (day: number): number => istMidnight(day) + 15.5 * 3600;

export interface OptionContract {
  readonly underlying: SimInstrument;
  readonly expiryDay: number;
  readonly strike: number;
  readonly call: boolean;
  readonly securityId: number;
}

export class OptionPricer {
  private readonly registry = new Lru<number, OptionContract>(50_000);
  constructor(private readonly seed: number) {}

  atmVol(u: SimInstrument): number {
    const x = uniformOf(this.seed, u.securityId, 0x61);
    return u.instrumentType === 'INDEX' ? 0.12 + x * 0.05 : 0.24 + x * 0.16;
  }

  contractId(u: SimInstrument, expiryDay: number, strike: number, call: boolean): number {
    const id =
      40_000_000 +
      (hashKeys(this.seed, u.securityId, expiryDay, Math.round(strike * 100), call ? 1 : 2) % 2_000_000_000);
    if (this.registry.get(id) === undefined) {
      this.registry.set(id, { underlying: u, expiryDay, strike, call, securityId: id });
    }
    return id;
  }

  contract(securityId: number): OptionContract | undefined {
    return this.registry.get(securityId);
  }

  /** Years to expiry from `nowS`, at least one minute. */
  yearsTo(expiryDay: number, nowS: number): number {
    return Math.max(60, expiryInstant(expiryDay) - nowS) / YEAR_S;
  }

  /** Price, IV and greeks of one contract at spot `s`. */
  value(u: SimInstrument, strike: number, call: boolean, s: number, t: number) {
    const iv = smileVol(this.atmVol(u), s, strike, t);
    const v = blackScholes(call, s, strike, t, iv);
    return { ...v, iv, price: toTick(Math.max(v.price, OPTION_TICK), OPTION_TICK) };
  }

  /** Open interest (contracts) falls off with distance from ATM; same for a (strike, day). */
  oi(
    u: SimInstrument,
    expiryDay: number,
    strike: number,
    call: boolean,
    stepsFromAtm: number,
    day: number,
  ): number {
    const base = 2_000 + uniformOf(this.seed, u.securityId, expiryDay, 0x62) * 50_000;
    const wing = Math.exp(-(stepsFromAtm * stepsFromAtm) / 60);
    const jitter =
      0.7 + 0.6 * uniformOf(this.seed, u.securityId, expiryDay, Math.round(strike * 100), call ? 1 : 2, day);
    return Math.round(base * wing * jitter) * u.lotSize;
  }

  chain(u: SimInstrument, spot: number, prevSpot: number, expiryDay: number, nowS: number, day: number) {
    const step = strikeStep(spot);
    const atm = Math.round(spot / step) * step;
    const t = this.yearsTo(expiryDay, nowS);
    const tPrev = t + 1 / 365;
    const oc: Record<string, { ce: Record<string, unknown>; pe: Record<string, unknown> }> = {};
    for (let k = -STRIKES_EACH_SIDE; k <= STRIKES_EACH_SIDE; k++) {
      const strike = atm + k * step;
      if (strike <= 0) continue;
      const side = (call: boolean) => {
        const v = this.value(u, strike, call, spot, t);
        const prev = this.value(u, strike, call, prevSpot, tPrev);
        const oi = this.oi(u, expiryDay, strike, call, k, day);
        const prevOi = this.oi(u, expiryDay, strike, call, k, day - 1);
        const volume = Math.round(oi * (0.5 + uniformOf(this.seed, u.securityId, strike, day, call ? 3 : 4)));
        const qty = (n: number) =>
          (1 + (hashKeys(this.seed, u.securityId, strike, day, n) % 40)) * u.lotSize * 25;
        return {
          average_price: toTick((v.price + prev.price) / 2, OPTION_TICK),
          greeks: {
            delta: round(v.delta, 5),
            theta: round(v.theta, 5),
            gamma: round(v.gamma, 7),
            vega: round(v.vega, 5),
          },
          implied_volatility: round(v.iv * 100, 4),
          last_price: v.price,
          oi,
          previous_close_price: prev.price,
          previous_oi: prevOi,
          previous_volume: Math.round(prevOi * 0.8),
          security_id: this.contractId(u, expiryDay, strike, call),
          top_ask_price: toTick(v.price + OPTION_TICK, OPTION_TICK),
          top_ask_quantity: qty(call ? 5 : 6),
          top_bid_price: toTick(Math.max(OPTION_TICK, v.price - OPTION_TICK), OPTION_TICK),
          top_bid_quantity: qty(call ? 7 : 8),
          volume,
        };
      };
      oc[strike.toFixed(6)] = { ce: side(true), pe: side(false) };
    }
    return { last_price: spot, oc };
  }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
