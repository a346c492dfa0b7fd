import { describe, expect, it } from 'vitest';
import {
  buildDisconnectRequest,
  buildSubscriptionRequests,
  type InstrumentRef,
  MAX_INSTRUMENTS_PER_REQUEST,
  parseClientRequest,
  RequestCode,
} from '../src/index.js';

function instruments(n: number, first = 1): InstrumentRef[] {
  return Array.from({ length: n }, (_, i) => ({
    exchangeSegment: 'INX_EQ' as const,
    securityId: String(first + i),
  }));
}

describe('buildSubscriptionRequests', () => {
  it('writes the spec body with requestCode, instrumentCount and instrumentList', () => {
    const [text, ...rest] = buildSubscriptionRequests(RequestCode.SubscribeTrade, instruments(2, 11536));
    expect(rest).toEqual([]);
    expect(text).toBe(
      '{"requestCode":15,"instrumentCount":2,"instrumentList":[{"exchangeSegment":"INX_EQ","securityId":"11536"},{"exchangeSegment":"INX_EQ","securityId":"11537"}]}',
    );
  });

  it('splits into requests of at most 100 instruments, keeping order', () => {
    const requests = buildSubscriptionRequests(RequestCode.SubscribeOhlc, instruments(250));
    expect(requests).toHaveLength(3);
    const parsed = requests.map(parseClientRequest);
    expect(parsed.map((r) => ('instrumentCount' in r ? r.instrumentCount : -1))).toEqual([100, 100, 50]);
    const ids = parsed.flatMap((r) =>
      'instrumentList' in r ? r.instrumentList.map((i) => i.securityId) : [],
    );
    expect(ids).toEqual(instruments(250).map((i) => i.securityId));
    expect(parsed.every((r) => r.requestCode === 17)).toBe(true);
  });

  it('accepts exactly 5000 and refuses 5001 with TOO_MANY_SUBSCRIPTIONS', () => {
    expect(buildSubscriptionRequests(16, instruments(5000))).toHaveLength(5000 / MAX_INSTRUMENTS_PER_REQUEST);
    expect(() => buildSubscriptionRequests(15, instruments(5001))).toThrow(
      expect.objectContaining({ name: 'CodecError', code: 'TOO_MANY_SUBSCRIPTIONS' }),
    );
  });

  it('gives no request for no instruments', () => {
    expect(buildSubscriptionRequests(18, [])).toEqual([]);
  });

  it('refuses bad codes, segments and ids', () => {
    expect(() => buildSubscriptionRequests(12 as 15, instruments(1))).toThrow(/requestCode/);
    const badSegment = [{ exchangeSegment: 'NSE_EQ', securityId: '1' }] as unknown as InstrumentRef[];
    expect(() => buildSubscriptionRequests(15, badSegment)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: expect.stringMatching(/exchangeSegment/) }),
    );
    expect(() => buildSubscriptionRequests(15, [{ exchangeSegment: 'INX_EQ', securityId: 'abc' }])).toThrow(
      /securityId/,
    );
    expect(() =>
      buildSubscriptionRequests(15, [{ exchangeSegment: 'INX_EQ', securityId: '2147483648' }]),
    ).toThrow(/int32/);
  });

  it('builds the disconnect request', () => {
    expect(buildDisconnectRequest()).toBe('{"requestCode":12}');
    expect(parseClientRequest(buildDisconnectRequest())).toEqual({ requestCode: 12 });
  });
});

describe('parseClientRequest', () => {
  const valid = {
    requestCode: 15,
    instrumentCount: 1,
    instrumentList: [{ exchangeSegment: 'INX_EQ', securityId: '7' }],
  };
  const parse = (body: unknown) => () =>
    parseClientRequest(typeof body === 'string' ? body : JSON.stringify(body));

  it('returns a clean request for valid text', () => {
    expect(parseClientRequest(JSON.stringify(valid))).toEqual(valid);
  });

  it.each([
    ['bad JSON', '{"requestCode":15', /not valid JSON/],
    ['a non-object', '[1,2]', /JSON object/],
    ['an unknown code', { ...valid, requestCode: 13 }, /unknown requestCode 13/],
    ['a missing code', { instrumentCount: 0 }, /unknown requestCode undefined/],
    ['a count mismatch', { ...valid, instrumentCount: 2 }, /instrumentCount 2 does not match the 1 entries/],
    ['a non-integer count', { ...valid, instrumentCount: '1' }, /instrumentCount must be an integer/],
    ['no instruments', { ...valid, instrumentCount: 0, instrumentList: [] }, /at least one/],
    [
      'more than 100 instruments',
      { requestCode: 17, instrumentCount: 101, instrumentList: instruments(101) },
      /101 instruments exceed the limit of 100/,
    ],
    [
      'a bad segment',
      { ...valid, instrumentList: [{ exchangeSegment: 'NSE_EQ', securityId: '7' }] },
      /exchangeSegment/,
    ],
    [
      'a numeric id',
      { ...valid, instrumentList: [{ exchangeSegment: 'INX_EQ', securityId: 7 }] },
      /securityId must be a string/,
    ],
    [
      'an empty id',
      { ...valid, instrumentList: [{ exchangeSegment: 'INX_EQ', securityId: '' }] },
      /securityId/,
    ],
    ['an unknown key', { ...valid, extra: true }, /unknown key "extra"/],
    [
      'an unknown instrument key',
      { ...valid, instrumentList: [{ ...valid.instrumentList[0], x: 1 }] },
      /unknown key "x"/,
    ],
    ['a disconnect with a body', { requestCode: 12, instrumentCount: 0 }, /unknown key "instrumentCount"/],
  ])('refuses %s with INVALID_REQUEST', (_name, body, message) => {
    expect(parse(body)).toThrow(expect.objectContaining({ name: 'CodecError', code: 'INVALID_REQUEST' }));
    expect(parse(body)).toThrow(message);
  });

  it('keeps peer input short in messages', () => {
    const long = 'x'.repeat(10_000);
    try {
      parseClientRequest(JSON.stringify({ ...valid, requestCode: long }));
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(200);
    }
  });
});
