/** The identity and day of a fill, and the snapshot clock: pure functions, no store or service. */
import type { GlobalTrade, Trade } from '@feedpipe/broker-api';
import { describe, expect, it } from 'vitest';
import { msUntilIst, parseIstClock } from '../src/fills/account-snapshots.js';
import { fromTrade, fromUsTrades, istDate } from '../src/fills/fill-record.js';

const trade = (over: Partial<Trade>): Trade =>
  ({
    svcClientId: '1000000001',
    orderId: '51',
    exchangeOrderId: '1100',
    exchangeTradeId: '11000001',
    transactionType: 'BUY',
    exchangeSegment: 'NSE_EQ',
    productType: 'INTRADAY',
    orderType: 'MARKET',
    tradingSymbol: 'TCS',
    securityId: '11536',
    tradedQuantity: 2,
    tradedPrice: 3500.5,
    createTime: '2026-11-24 23:59:58',
    updateTime: '2026-11-24 23:59:58',
    exchangeTime: '2026-11-25 00:00:01',
    ...over,
  }) as Trade;

describe('fill identity', () => {
  it('is the segment and the trade id, whichever read (day book, history) returned it', () => {
    const day = fromTrade(trade({}), 0);
    const history = fromTrade(
      { ...trade({}), customSymbol: 'TCS', isin: 'INE467B01029' } as unknown as Trade,
      0,
    );
    expect(day?.fillKey).toBe('NSE_EQ:11000001');
    expect(history?.fillKey).toBe(day?.fillKey);
    expect(fromTrade(trade({ exchangeSegment: 'BSE_EQ' }), 0)?.fillKey).toBe('BSE_EQ:11000001');
  });

  it('takes the exchange time as the fill time, read as IST, and its IST day', () => {
    const f = fromTrade(trade({}), 0);
    expect(f?.tradeTimeMs).toBe(Date.parse('2026-11-25T00:00:01+05:30'));
    expect(f?.tradeDate).toBe('2026-11-25');
    expect(fromTrade(trade({ exchangeTime: '' }), 0)?.tradeDate).toBe('2026-11-24');
    // No readable time at all: the time of the read.
    const at = Date.parse('2026-11-26T10:00:00Z');
    expect(fromTrade(trade({ exchangeTime: '', updateTime: 'x', createTime: '' }), at)?.tradeTimeMs).toBe(at);
  });

  it('refuses a record without a trade id or order id (it could not be told from another fill)', () => {
    expect(fromTrade(trade({ exchangeTradeId: '' }), 0)).toBeUndefined();
    expect(fromTrade(trade({ orderId: '' }), 0)).toBeUndefined();
  });

  it("numbers US fills per order in book order, and keeps the book's trading day", () => {
    const us = (orderId: string, tradedQuantity: number): GlobalTrade =>
      ({
        orderId,
        tradedQuantity,
        tradedPrice: 10,
        securityId: '1000001',
        exchangeSegment: 'INX_EQ',
        tradeDate: '2026-11-24',
        exchangeTime: '2026-11-25 01:30:00',
      }) as GlobalTrade;
    const fills = fromUsTrades([us('A', 1), us('B', 2), us('A', 0.5)], 0);
    expect(fills.map((f) => f.fillKey)).toEqual(['INX_EQ:A#1', 'INX_EQ:B#1', 'INX_EQ:A#2']);
    expect(fills.every((f) => f.kind === 'us_order' && f.tradeDate === '2026-11-24')).toBe(true);
  });

  it('reads the IST day of an instant', () => {
    expect(istDate(Date.parse('2026-11-24T18:29:59Z'))).toBe('2026-11-24');
    expect(istDate(Date.parse('2026-11-24T18:30:00Z'))).toBe('2026-11-25');
  });
});

describe('snapshot clock', () => {
  it('waits until the next IST wall-clock time, today or tomorrow', () => {
    const at = parseIstClock('23:55', 'x');
    const before = Date.parse('2026-11-24T23:00:00+05:30');
    expect(msUntilIst(before, at)).toBe(55 * 60_000);
    const after = Date.parse('2026-11-24T23:56:00+05:30');
    expect(msUntilIst(after, at)).toBe(86_400_000 - 60_000);
  });

  it('refuses anything but HH:MM', () => {
    for (const bad of ['24:00', '7:30', '12:60', 'noon'])
      expect(() => parseIstClock(bad, 'where')).toThrow(/where/);
  });
});
