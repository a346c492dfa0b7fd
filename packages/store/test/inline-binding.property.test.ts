/**
 * Property tests of the inline binding against ClickHouse itself (embedded chDB): random values of
 * every type the binder knows are bound into the statement text, run, and read back by the engine
 * (as hex, text or epoch numbers, so nothing is lost in a JSON round trip). A value comes back
 * exactly, with the declared type, and a string never changes the statement around it, whatever
 * quotes, backslashes, NULs or code points it holds.
 */
import { tempDir } from '@feedpipe/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindInline } from '../src/binding/inline-binding.js';
import { createStore, type QueryParam, type Store } from '../src/index.js';

const RUNS = 60;

describe('inline binding round-trips every type through ClickHouse', () => {
  let store: Store;

  beforeAll(() => {
    store = createStore({ dataDir: tempDir('inline-binding') });
  });
  afterAll(async () => {
    await store.close();
  });

  /** One row of `sql` with `{v:type}` bound inline (asserted: not left to the engine's binding). */
  async function row<T>(sql: string, value: QueryParam): Promise<T> {
    expect(bindInline(sql, { v: value }), 'bound in the text').toBeDefined();
    const rows = await store.user.rows<T>(sql, { v: value });
    expect(rows).toHaveLength(1);
    return rows[0] as T;
  }

  const utf8Hex = (s: string) => Buffer.from(s, 'utf8').toString('hex').toUpperCase();

  it('strings: quotes, backslashes, NULs, control characters and any code point', async () => {
    const nasty = fc.constantFrom(
      "'",
      "\\'",
      "\\\\'",
      "'; DROP TABLE t; --",
      "') OR 1=1 --",
      '\0',
      'a\0b',
      '{v:String}',
      '$$',
      '\u{1F600}\u00e9\u4e2d',
      '\\',
      '\\x41',
      '\\u0041',
    );
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), nasty, fc.string({ maxLength: 5 }));
    await fc.assert(
      fc.asyncProperty(text, async (s) => {
        const got = await row<{ h: string; t: string; n: number | string }>(
          'SELECT hex({v:String}) AS h, toTypeName({v:String}) AS t, 1 AS n',
          s,
        );
        expect(got).toEqual({ h: utf8Hex(s), t: 'String', n: 1 });
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('integers of every width at their limits and between', async () => {
    const widths = [8, 16, 32, 64, 128, 256];
    const cases = fc.oneof(
      ...widths.flatMap((bits) => {
        const span = 1n << BigInt(bits);
        return [
          fc.bigInt(0n, span - 1n).map((n) => ({ type: `UInt${bits}`, n })),
          fc.bigInt(-(span / 2n), span / 2n - 1n).map((n) => ({ type: `Int${bits}`, n })),
        ];
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, fc.constantFrom('bigint', 'string', 'number'), async ({ type, n }, as) => {
        const value =
          as === 'string' ? n.toString() : as === 'number' && Number.isSafeInteger(Number(n)) ? Number(n) : n;
        const got = await row<{ s: string; t: string }>(
          `SELECT toString({v:${type}}) AS s, toTypeName({v:${type}}) AS t`,
          value,
        );
        expect(got).toEqual({ s: n.toString(), t: type });
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('floats: Float64 and Float32 bit for bit (signed zero and subnormals included)', async () => {
    const bitsOf = (x: number, width: 32 | 64): string => {
      const bytes = Buffer.alloc(width / 8);
      if (width === 64) bytes.writeDoubleLE(x);
      else bytes.writeFloatLE(x);
      return bytes.toString('hex').toUpperCase();
    };
    const finite = { noNaN: true, noDefaultInfinity: true } as const;
    const cases = fc.oneof(
      fc.double(finite).map((x) => ({ width: 64 as const, x })),
      fc.float(finite).map((x) => ({ width: 32 as const, x })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ width, x }) => {
        const type = `Float${width}`;
        const got = await row<{ h: string }>(`SELECT hex({v:${type}}) AS h`, x);
        expect(got.h, `${type} ${x}`).toBe(bitsOf(x, width));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('dates and times: Date, Date32, DateTime and DateTime64 in UTC', async () => {
    const ms = (from: string, to: string) =>
      fc.integer({ min: Date.parse(from), max: Date.parse(to) }).map((t) => new Date(t));
    await fc.assert(
      fc.asyncProperty(ms('1970-01-01', '2149-06-06'), async (d) => {
        const got = await row<{ s: string }>('SELECT toString({v:Date}) AS s', d);
        expect(got.s).toBe(d.toISOString().slice(0, 10));
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(ms('1900-01-01', '2299-12-31'), async (d) => {
        const got = await row<{ s: string }>('SELECT toString({v:Date32}) AS s', d);
        expect(got.s).toBe(d.toISOString().slice(0, 10));
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(ms('1970-01-01', '2106-02-07'), async (d) => {
        const got = await row<{ s: number | string }>("SELECT toUnixTimestamp({v:DateTime('UTC')}) AS s", d);
        expect(Number(got.s)).toBe(Math.floor(d.getTime() / 1000));
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(ms('1900-01-01', '2299-12-31'), async (d) => {
        const got = await row<{ s: number | string }>(
          "SELECT toUnixTimestamp64Milli({v:DateTime64(3, 'UTC')}) AS s",
          d,
        );
        expect(Number(got.s)).toBe(d.getTime());
      }),
      { numRuns: RUNS },
    );
  });

  it('booleans, UUIDs, fixed strings, nullables and low cardinality', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), async (b) => {
        expect(await row('SELECT toString({v:Bool}) AS s', b)).toEqual({ s: String(b) });
      }),
      { numRuns: 10 },
    );
    await fc.assert(
      fc.asyncProperty(fc.uuid(), async (u) => {
        expect(await row('SELECT toString({v:UUID}) AS s', u)).toEqual({ s: u.toLowerCase() });
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 6 }), async (s) => {
        const bytes = Buffer.from(s, 'utf8');
        fc.pre(bytes.length <= 24);
        const padded = Buffer.concat([bytes, Buffer.alloc(24 - bytes.length)]);
        expect(await row('SELECT hex({v:FixedString(24)}) AS h', s)).toEqual({
          h: padded.toString('hex').toUpperCase(),
        });
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(fc.option(fc.string({ unit: 'binary', maxLength: 20 })), async (s) => {
        const got = await row<{ n: number; h: string | null }>(
          'SELECT isNull({v:Nullable(String)}) AS n, hex(assumeNotNull({v:Nullable(String)})) AS h',
          s,
        );
        expect(got).toEqual({ n: s === null ? 1 : 0, h: s === null ? '' : utf8Hex(s) });
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 20 }), async (s) => {
        expect(
          await row(
            'SELECT hex(toString({v:LowCardinality(String)})) AS h, toTypeName({v:LowCardinality(String)}) AS t',
            s,
          ),
        ).toEqual({ h: utf8Hex(s), t: 'LowCardinality(String)' });
      }),
      { numRuns: RUNS },
    );
  });

  it('arrays, nested and of nullables', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'binary', maxLength: 10 }), { maxLength: 8 }),
        async (a) => {
          expect(await row('SELECT arrayMap(x -> hex(x), {v:Array(String)}) AS h', a)).toEqual({
            h: a.map(utf8Hex),
          });
        },
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.option(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n)), { maxLength: 4 }), {
          maxLength: 4,
        }),
        async (a) => {
          const got = await row<{ s: string }>('SELECT toString({v:Array(Array(Nullable(Int64)))}) AS s', a);
          expect(got.s).toBe(
            `[${a.map((inner) => `[${inner.map((n) => (n === null ? 'NULL' : n)).join(',')}]`).join(',')}]`,
          );
        },
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 6 }),
        async (a) => {
          const got = await row<{ h: string[] }>('SELECT arrayMap(x -> hex(x), {v:Array(Float32)}) AS h', a);
          expect(got.h).toEqual(
            a.map((x) => {
              const b = Buffer.alloc(4);
              b.writeFloatLE(x);
              return b.toString('hex').toUpperCase();
            }),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a bound string never changes the statement: two values come back as two columns of one row', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(text, text, async (a, b) => {
        const params = { a, b };
        const sql =
          'SELECT hex({a:String}) AS a, hex({b:String}) AS b FROM numbers(1) WHERE {b:String} = {b:String}';
        expect(bindInline(sql, params)).toBeDefined();
        expect(await store.user.rows(sql, params)).toEqual([{ a: utf8Hex(a), b: utf8Hex(b) }]);
      }),
      { numRuns: RUNS },
    );
  });
});
