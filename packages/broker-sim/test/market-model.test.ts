import { describe, expect, it } from 'vitest';
import { isinCheckDigit } from '../src/market/identifiers.js';
import { INX_EQ_FIRST_ID, MarketModel, SimError } from '../src/market/index.js';

const T0 = Date.UTC(2024, 5, 3, 14, 0, 0);

function fixedClock(start = T0): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

describe('MarketModel universe', () => {
  const model = new MarketModel({ seed: 7, instruments: 2_000, now: fixedClock().now });

  it('holds the INX_EQ ids, Indian stocks and the well-known indices, all ids unique', () => {
    const ids = new Set(model.universe.map((i) => i.securityId));
    expect(ids.size).toBe(model.universe.length);
    expect(model.universe.filter((i) => i.exchangeSegment === 'INX_EQ')).toHaveLength(2_000);
    expect(model.instrument(INX_EQ_FIRST_ID)?.exchangeSegment).toBe('INX_EQ');
    expect(model.instrument(13)?.symbol).toBe('NIFTY');
    expect(model.instrument(25)?.symbol).toBe('BANKNIFTY');
    expect(model.instrument(51)?.symbol).toBe('SENSEX');
    expect(model.instrument(11536)?.symbol).toBe('TCS');
    expect(model.universe.filter((i) => i.exchangeSegment === 'NSE_EQ').length).toBeGreaterThanOrEqual(100);
    expect(model.universe.filter((i) => i.exchangeSegment === 'BSE_EQ').length).toBeGreaterThanOrEqual(100);
    expect(model.instrument(999)).toBeUndefined();
  });

  it('gives unique symbols per segment, valid ISINs and weekday inception dates', () => {
    for (const segment of ['INX_EQ', 'NSE_EQ', 'BSE_EQ'] as const) {
      const symbols = model.universe.filter((i) => i.exchangeSegment === segment).map((i) => i.symbol);
      expect(new Set(symbols).size).toBe(symbols.length);
    }
    for (const instrument of model.universe.slice(0, 600)) {
      expect(instrument.inceptionDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const day = new Date(`${instrument.inceptionDate}T00:00:00Z`).getUTCDay();
      expect(day === 0 || day === 6).toBe(false);
      if (instrument.instrumentType === 'EQUITY') expect(instrument.isin).toMatch(/^(US|IN)[0-9A-Z]{9}\d$/);
    }
    // Real ISINs (Apple, Reliance): the check digit algorithm must reproduce their last digit.
    expect(isinCheckDigit('US037833100')).toBe(5);
    expect(isinCheckDigit('INE002A0101')).toBe(8);
    for (const instrument of model.universe.slice(0, 600)) {
      if (instrument.isin === '') continue;
      expect(isinCheckDigit(instrument.isin.slice(0, 11))).toBe(Number(instrument.isin.slice(11)));
    }
  });

  it('uses the tick size of the segment for every price', () => {
    for (const instrument of model.universe.slice(0, 600)) {
      const q = model.quote(instrument.securityId);
      expect(q).toBeDefined();
      const ticks = (q?.ltp ?? 0) / instrument.tickSize;
      expect(Math.abs(ticks - Math.round(ticks))).toBeLessThan(1e-6);
      expect(q?.ltp).toBeGreaterThan(0);
    }
  });

  it('rejects unknown and bad options with a coded error', () => {
    expect(() => new MarketModel({ seed: 1, instrument: 5 } as never)).toThrow(
      'MarketModel: unknown option "instrument" (allowed: seed, instruments, now, sessions)',
    );
    expect(() => new MarketModel({ seed: 1, sessions: { open: 5 } } as never)).toThrow(
      'MarketModel.sessions: unknown option "open" (allowed: preOpenMs, openMs, closedMs)',
    );
    expect(() => new MarketModel({ seed: -1 })).toThrow(SimError);
    expect(() => new MarketModel({ seed: 1, instruments: 0 })).toThrow(/instruments/);
    expect(() => new MarketModel({ seed: 1, sessions: { openMs: 10, lunchMs: 5 } as never })).toThrow(
      /lunchMs/,
    );
    try {
      new MarketModel({} as never);
    } catch (error) {
      expect((error as SimError).code).toBe('INVALID_OPTION');
    }
  });
});

describe('MarketModel trades', () => {
  it('is a pure function of the seed: same trades, same quotes', () => {
    const a = new MarketModel({ seed: 42, instruments: 500, now: fixedClock().now });
    const b = new MarketModel({ seed: 42, instruments: 500, now: fixedClock().now });
    const c = new MarketModel({ seed: 43, instruments: 500, now: fixedClock().now });
    const i = a.indexOf(INX_EQ_FIRST_ID + 17);
    for (let n = 0; n < 1_000; n++) {
      a.trade(i, 1_717_423_200 + n);
      b.trade(i, 1_717_423_200 + n);
      c.trade(c.indexOf(INX_EQ_FIRST_ID + 17), 1_717_423_200 + n);
    }
    expect(a.quote(INX_EQ_FIRST_ID + 17)).toEqual(b.quote(INX_EQ_FIRST_ID + 17));
    expect(a.quote(INX_EQ_FIRST_ID + 17)).not.toEqual(c.quote(INX_EQ_FIRST_ID + 17));
  });

  it("keeps an instrument's stream independent of trades of other instruments", () => {
    const a = new MarketModel({ seed: 5, instruments: 100, now: fixedClock().now });
    const b = new MarketModel({ seed: 5, instruments: 100, now: fixedClock().now });
    const x = a.indexOf(INX_EQ_FIRST_ID + 3);
    const y = a.indexOf(INX_EQ_FIRST_ID + 4);
    for (let n = 0; n < 200; n++) {
      a.trade(x, 1_000 + n);
      a.trade(y, 1_000 + n);
      b.trade(x, 1_000 + n);
    }
    expect(a.quote(INX_EQ_FIRST_ID + 3)).toEqual(b.quote(INX_EQ_FIRST_ID + 3));
  });

  it('strictly increases volume, tracks OHLC and stays inside the circuit band', () => {
    const model = new MarketModel({ seed: 9, instruments: 50, now: fixedClock().now });
    const id = INX_EQ_FIRST_ID + 9;
    const i = model.indexOf(id);
    let previous = model.volumeAt(i);
    let high = model.highAt(i);
    let low = model.lowAt(i);
    for (let n = 0; n < 20_000; n++) {
      model.trade(i, 2_000 + n);
      const q = model.quote(id);
      if (q === undefined) throw new Error('quote missing');
      expect(q.volume).toBeGreaterThan(previous);
      previous = q.volume;
      high = Math.max(high, q.ltp);
      low = Math.min(low, q.ltp);
      if (n % 1000 === 0 || n === 19_999) {
        expect(q.high).toBe(high);
        expect(q.low).toBe(low);
        expect(q.lastTradeTime).toBe(2_000 + n);
        expect(q.ltp).toBeLessThanOrEqual(q.upperCircuit);
        expect(q.ltp).toBeGreaterThanOrEqual(q.lowerCircuit);
        expect(q.week52High).toBeGreaterThanOrEqual(q.high);
        expect(q.week52Low).toBeLessThanOrEqual(q.low);
      }
    }
  });

  it('starts a few instruments without reference values and fills them in with their first trade', () => {
    const model = new MarketModel({ seed: 3, instruments: 5_000, now: fixedClock().now });
    const pending = model.universe.filter((inst) => !model.hasReference(model.indexOf(inst.securityId)));
    expect(pending.length).toBeGreaterThan(10);
    expect(pending.length).toBeLessThan(500);
    const first = pending[0];
    if (first === undefined) throw new Error('no pending instrument');
    expect(model.quote(first.securityId)?.upperCircuit).toBe(0);
    expect(model.quote(first.securityId)?.week52High).toBe(0);
    model.trade(model.indexOf(first.securityId), 3_000);
    expect(model.quote(first.securityId)?.upperCircuit).toBeGreaterThan(0);
    expect(model.quote(first.securityId)?.week52Low).toBeGreaterThan(0);
  });

  it('advances Indian stocks and indices by the clock when read, capped per read', () => {
    const clock = fixedClock();
    const model = new MarketModel({ seed: 11, instruments: 10, now: clock.now });
    const before = model.quote(13);
    clock.advance(5_000);
    const after = model.quote(13);
    expect(after?.volume).toBeGreaterThan(before?.volume ?? 0);
    expect(after?.lastTradeTime).toBe(Math.floor((T0 + 5_000) / 1000));
    const inx = model.quote(INX_EQ_FIRST_ID);
    clock.advance(5_000);
    expect(model.quote(INX_EQ_FIRST_ID)).toEqual(inx);
  });
});

describe('MarketModel sessions', () => {
  it('is always open by default', () => {
    const model = new MarketModel({ seed: 1, instruments: 10, now: fixedClock().now });
    expect(model.session()).toBe('OPEN');
    expect(model.syncSession()).toBeUndefined();
  });

  it('cycles pre-open, open, closed and starts a new day on open', () => {
    const clock = fixedClock(0);
    const model = new MarketModel({
      seed: 1,
      instruments: 10,
      now: clock.now,
      sessions: { preOpenMs: 1_000, openMs: 5_000, closedMs: 2_000 },
    });
    expect(model.session()).toBe('PRE_OPEN');
    clock.advance(1_000);
    const change = model.syncSession();
    expect(change).toEqual({ from: 'PRE_OPEN', to: 'OPEN', atMs: 1_000 });
    const i = model.indexOf(INX_EQ_FIRST_ID);
    model.trade(i, 2);
    const lastPrice = model.ltpAt(i);
    clock.advance(5_000);
    expect(model.session()).toBe('CLOSED');
    clock.advance(2_000);
    expect(model.session()).toBe('PRE_OPEN');
    clock.advance(1_000);
    expect(model.session()).toBe('OPEN');
    const q = model.quote(INX_EQ_FIRST_ID);
    expect(q?.prevClose).toBe(lastPrice);
    expect(q?.volume).toBe(0);
    expect(q?.open).toBe(0);
  });
});
