import type { Order, Trade } from '@feedpipe/broker-api';
import { describe, expect, it } from 'vitest';
import { parseIstTime, rebuildOrder, toOrderEvent, toWire } from '../src/postbacks/index.js';
import { resolveReceiverOptions } from '../src/postbacks/options.js';
import { SeenKeys } from '../src/postbacks/seen-keys.js';
import { parseAllowlist, secretMatches, sourceAllowed } from '../src/postbacks/source-guard.js';

const order = (over: Partial<Order> = {}): Order => ({
  svcClientId: '1000000001',
  orderId: '0001000001',
  exchangeOrderId: '10000011',
  correlationId: 'c-1',
  orderStatus: 'CANCELLED',
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  tradingSymbol: 'X',
  securityId: '2885',
  quantity: 250,
  disclosedQuantity: 0,
  price: 99,
  triggerPrice: 0,
  afterMarketOrder: false,
  createTime: '2024-06-03 10:30:00',
  updateTime: '2024-06-03 10:30:05',
  exchangeTime: '2024-06-03 10:30:01',
  remainingQuantity: 50,
  averageTradedPrice: 98.75,
  filledQty: 200,
  ...over,
});

const trade = (qty: number, price: number, time: string) =>
  ({ orderId: '0001000001', tradedQuantity: qty, tradedPrice: price, updateTime: time }) as Trade;

describe('order events', () => {
  it('gives a duplicate delivery the same key whatever the field order, and a change a new one', () => {
    const body = {
      orderId: 'A1',
      orderStatus: 'PENDING',
      filledQty: 0,
      quantity: 10,
      price: 5,
      updateTime: '2024-06-03 10:30:00',
    };
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const a = toOrderEvent(body, 'postback', 0);
    expect(toOrderEvent(reordered, 'postback', 1).eventKey).toBe(a.eventKey);
    expect(toOrderEvent({ ...body, price: 6 }, 'postback', 0).eventKey).not.toBe(a.eventKey);
    expect(toOrderEvent({ ...body, filledQty: 5 }, 'postback', 0).eventKey).not.toBe(a.eventKey);
    expect(a).toMatchObject({ kind: 'order', phase: 1, remainingQty: 10 });
    expect(a.eventTimeMs).toBe(Date.UTC(2024, 5, 3, 5, 0, 0));
  });

  it('tells alerts, forever and US orders apart and reads IST times', () => {
    expect(toOrderEvent({ alertId: 'A7', alertStatus: 'TRIGGERED' }, 'postback', 0)).toMatchObject({
      kind: 'alert',
      orderId: 'A7',
      phase: 2,
    });
    expect(
      toOrderEvent({ orderId: 'F1', orderStatus: 'PENDING', orderFlag: 'OCO' }, 'postback', 0).kind,
    ).toBe('forever');
    const us = toOrderEvent(
      { orderId: 'US1', orderStatus: 'TRADED', exchangeSegment: 'INX_EQ', tradedQty: 2.5 },
      'postback',
      0,
    );
    expect(us).toMatchObject({ kind: 'us_order', filledQty: 2.5, phase: 2 });
    expect(parseIstTime('2024-06-03 00:00:00')).toBe(Date.UTC(2024, 5, 2, 18, 30));
    expect(parseIstTime('03/06/2024')).toBeUndefined();
    expect(
      toOrderEvent({ orderId: 'B', orderStatus: 'TRANSIT', updateTime: 'junk' }, 'postback', 1234)
        .eventTimeMs,
    ).toBe(1234);
  });

  it("writes times as UTC epoch numbers on the wire, the service's IST text only as updateTimeIst", () => {
    const body = { orderId: 'W1', orderStatus: 'PENDING', updateTime: '2024-06-03 10:30:05' };
    const wire = toWire(toOrderEvent(body, 'postback', 1_717_390_900_123), 7);
    expect(wire).toMatchObject({
      updateTime: Date.UTC(2024, 5, 3, 5, 0, 5),
      updateTimeIst: '2024-06-03 10:30:05',
      receivedAt: 1_717_390_900_123_000,
      seq: 7,
      payload: body,
    });
    // An alert's time is its triggeredTime; a missing or unreadable time is null, never the text.
    const alert = toWire(
      toOrderEvent(
        { alertId: 'A1', alertStatus: 'TRIGGERED', triggeredTime: '2024-06-03 09:15:00' },
        'postback',
        5,
      ),
      1,
    );
    expect(alert.updateTime).toBe(Date.UTC(2024, 5, 3, 3, 45));
    const junk = toWire(
      toOrderEvent({ orderId: 'J', orderStatus: 'TRANSIT', updateTime: 'junk' }, 'postback', 5),
      2,
    );
    expect(junk).toMatchObject({ updateTime: null, updateTimeIst: 'junk' });
    expect(toWire(toOrderEvent({ orderId: 'N', orderStatus: 'TRANSIT' }, 'reconcile', 5), 3)).toMatchObject({
      updateTime: null,
      updateTimeIst: '',
      source: 'reconcile',
    });
  });

  it('rebuilds placement, exchange acceptance, partial fills and the current state of an order', () => {
    const o = order();
    const bodies = rebuildOrder(o, [
      trade(100, 98.5, '2024-06-03 10:30:02'),
      trade(100, 99, '2024-06-03 10:30:03'),
    ]);
    expect(bodies.map((b) => `${b.orderStatus}:${b.filledQty}:${b.updateTime}`)).toEqual([
      'TRANSIT:0:2024-06-03 10:30:00',
      'PENDING:0:2024-06-03 10:30:01',
      'PENDING:100:2024-06-03 10:30:02',
      'PENDING:200:2024-06-03 10:30:03',
      'CANCELLED:200:2024-06-03 10:30:05',
    ]);
    expect(bodies[3]).toMatchObject({ remainingQuantity: 50, averageTradedPrice: 98.75 });
    // The last fill of a fully traded order is the TRADED state itself, not a PENDING one.
    const full = rebuildOrder(order({ orderStatus: 'TRADED', quantity: 200, remainingQuantity: 0 }), [
      trade(100, 98.5, '2024-06-03 10:30:02'),
      trade(100, 99, '2024-06-03 10:30:03'),
    ]);
    expect(full.map((b) => `${b.orderStatus}:${b.filledQty}`)).toEqual([
      'TRANSIT:0',
      'PENDING:0',
      'PENDING:100',
      'TRADED:200',
    ]);
    const rejected = rebuildOrder(order({ orderStatus: 'REJECTED', exchangeOrderId: '', filledQty: 0 }), []);
    expect(rejected.map((b) => b.orderStatus)).toEqual(['TRANSIT', 'REJECTED']);
  });
});

describe('receiver guards and options', () => {
  it('checks the secret in constant time and the source against IPs and CIDRs', () => {
    expect(secretMatches('s'.repeat(20), 's'.repeat(20))).toBe(true);
    expect(secretMatches('s'.repeat(20), 's'.repeat(19))).toBe(false);
    expect(secretMatches('s'.repeat(20), undefined)).toBe(false);
    const list = parseAllowlist(['10.1.0.0/16', '::1', '127.0.0.1']);
    expect(sourceAllowed(list, '10.1.200.3')).toBe(true);
    expect(sourceAllowed(list, '::ffff:127.0.0.1')).toBe(true);
    expect(sourceAllowed(list, '::1')).toBe(true);
    expect(sourceAllowed(list, '10.2.0.1')).toBe(false);
    expect(sourceAllowed(list, 'garbage')).toBe(false);
    expect(() => parseAllowlist(['10.0.0.0/33'])).toThrow(/prefix/);
    expect(() => parseAllowlist(['example.com'])).toThrow(/not an IP/);
  });

  it('refuses unknown options, a weak secret and bad values, without echoing the secret', () => {
    const store = { internal: { rows: () => undefined } } as never;
    const base = {
      store,
      kafkaBrokers: ['127.0.0.1:9092'],
      secret: 'a-long-enough-secret-1',
      walDir: '/tmp/unused-wal',
    };
    expect(resolveReceiverOptions(base)).toMatchObject({
      topic: 'orders.updates',
      table: 'market.order_events',
    });
    expect(() => resolveReceiverOptions({ ...base, batch: 3 } as never)).toThrow(
      /^postbacks: receiver options: unknown option "batch" \(allowed: store, kafkaBrokers, walDir, secret,/,
    );
    expect(() => resolveReceiverOptions({ ...base, secret: 'short' })).toThrow(
      /"secret" must be 16-256 characters/,
    );
    try {
      resolveReceiverOptions({ ...base, secret: 'bad secret with spaces!!' });
    } catch (e) {
      expect((e as Error).message).not.toContain('spaces');
    }
    expect(() => resolveReceiverOptions({ ...base, maxQueue: 0 })).toThrow(/maxQueue/);
    expect(() => resolveReceiverOptions({ ...base, table: 'x; DROP' })).toThrow(/table/);
    expect(() => resolveReceiverOptions({ ...base, reconcileIntervalMs: 1000 })).toThrow(/needs broker/);
    expect(() => resolveReceiverOptions({ ...base, kafkaBrokers: [] })).toThrow(/kafkaBrokers/);
  });

  it('forgets the oldest keys past its capacity', () => {
    const seen = new SeenKeys(2);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    seen.add('b');
    seen.add('c');
    expect([seen.has('a'), seen.has('b'), seen.has('c'), seen.size]).toEqual([false, true, true, 2]);
  });
});

describe('receiver options', () => {
  it('keeps the given topic and table next to defaulted numbers', () => {
    const store = { internal: { rows: () => undefined } } as never;
    const o = resolveReceiverOptions({
      store,
      kafkaBrokers: ['127.0.0.1:9092'],
      secret: 'a-long-enough-secret-1',
      walDir: '/tmp/unused-wal',
      topic: 'my.topic',
      table: 'db.events',
      kafkaClientId: 'me',
      batchSize: 7,
    });
    expect(o).toMatchObject({
      topic: 'my.topic',
      table: 'db.events',
      kafkaClientId: 'me',
      batchSize: 7,
      maxQueue: 10_000,
    });
  });
});
