/**
 * The embedded engine's inline binding, as text: where placeholders are found and bound, where the
 * statement is left to the engine's own binding, and what a bad value gets. (Round trips through
 * ClickHouse itself are in inline-binding.property.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { parseBindType, typeText } from '../src/binding/bind-type.js';
import { bindInline } from '../src/binding/inline-binding.js';
import { stringLiteral } from '../src/binding/literal.js';
import type { StoreError } from '../src/index.js';

describe('inline binding: placeholders', () => {
  it('binds every placeholder, the same one as often as it is used, each as a typed literal', () => {
    expect(
      bindInline('SELECT {a:UInt32} + {a:UInt32}, {s:String} WHERE x = {n:Nullable(Int8)}', {
        a: 7,
        s: 'x',
        n: null,
      }),
    ).toBe("SELECT _CAST(7, 'UInt32') + _CAST(7, 'UInt32'), 'x' WHERE x = _CAST(NULL, 'Nullable(Int8)')");
  });

  it('takes an array as its text too (the ClickHouse HTTP protocol passes every value as text)', () => {
    expect(bindInline('SELECT {ids:Array(UInt32)}', { ids: '[1,2]' })).toBe(
      "SELECT _CAST('[1,2]', 'Array(UInt32)')",
    );
    // The text stays one string literal whatever it holds: the engine parses it as the type.
    expect(bindInline('SELECT {s:Array(String)}', { s: "['a'], file('x')" })).toBe(
      "SELECT _CAST('[\\'a\\'], file(\\'x\\')', 'Array(String)')",
    );
    // Inside an array, elements are values, not text of arrays.
    expect(() => bindInline('SELECT {n:Array(Array(UInt8))}', { n: ['[1]'] })).toThrow(/an array/);
  });

  it('leaves braces inside strings, quoted identifiers and comments alone', () => {
    const sql = [
      "SELECT '{a:UInt8}', 'it''s {a:UInt8}', 'back\\\\slash\\' {a:UInt8}'",
      ', "{a:UInt8}", `{a:UInt8}` -- {a:UInt8}',
      ', /* {a:UInt8} /* nested {a:UInt8} */ still {a:UInt8} */ {a:UInt8}',
    ].join('\n');
    const bound = bindInline(sql, { a: 1 });
    expect(bound).toBe(sql.replace(/\{a:UInt8\}$/, "_CAST(1, 'UInt8')"));
  });

  it('leaves map literals alone', () => {
    expect(bindInline("SELECT {'k': 1}, map('a', {a:UInt8})", { a: 2 })).toBe(
      "SELECT {'k': 1}, map('a', _CAST(2, 'UInt8'))",
    );
  });

  it('gives the statement back to the engine for what it does not read with certainty', () => {
    const engine = [
      'SELECT $$x$$, {a:UInt8}', // heredoc
      'SELECT 1 # comment {a:UInt8}', // MySQL-style comment
      "SELECT 'unterminated {a:UInt8}",
      'SELECT {a :UInt8}', // a placeholder written with a space
      'SELECT { a:UInt8}',
      'SELECT {/* c */a:UInt8}',
      'SELECT {a:Decimal(10, 2)}', // a type outside the binder's grammar
      'SELECT {t:Identifier}',
      'SELECT {m:Map(String, UInt8)}',
      'SELECT {a:UInt8',
    ];
    for (const sql of engine) expect(bindInline(sql, { a: 1, t: 'x', m: {} }), sql).toBeUndefined();
  });

  it('refuses a placeholder without a value, naming it', () => {
    expect(() => bindInline('SELECT {missing:UInt8}', {})).toThrowError(
      /query parameter "missing" has no value/,
    );
  });
});

describe('inline binding: values are checked against their type', () => {
  const refused = (type: string, value: unknown): StoreError => {
    try {
      bindInline(`SELECT {v:${type}}`, { v: value as never });
    } catch (error) {
      return error as StoreError;
    }
    throw new Error(`${type} accepted ${String(value)}`);
  };

  it('refuses out-of-range and non-integral integers, with the parameter and type named', () => {
    for (const [type, value] of [
      ['UInt8', 256],
      ['UInt8', -1],
      ['Int8', 128],
      ['UInt32', 1.5],
      ['UInt64', '18446744073709551616'],
      ['Int64', 2 ** 60], // an unsafe JS integer: pass a bigint or a string
      ['UInt32', '12abc'],
      ['UInt32', true],
    ] as const) {
      const error = refused(type, value);
      expect(error.code, `${type} ${value}`).toBe('STORE_QUERY_INVALID');
      expect(error.message).toMatch(new RegExp(`query parameter "v" \\(${type}\\)`));
    }
  });

  it('accepts 64-bit values as bigints and digit strings, and writes 128/256-bit ones as text', () => {
    expect(bindInline('SELECT {v:UInt64}', { v: 18446744073709551615n })).toBe(
      "SELECT _CAST(18446744073709551615, 'UInt64')",
    );
    expect(bindInline('SELECT {v:Int64}', { v: '-9223372036854775808' })).toBe(
      "SELECT _CAST(-9223372036854775808, 'Int64')",
    );
    expect(bindInline('SELECT {v:UInt128}', { v: 2n ** 100n })).toBe(
      `SELECT _CAST('${2n ** 100n}', 'UInt128')`,
    );
  });

  it('refuses non-finite floats, malformed UUIDs, oversized fixed strings and non-arrays', () => {
    expect(refused('Float64', Number.NaN).message).toMatch(/finite number/);
    expect(refused('Float64', 'Infinity').message).toMatch(/finite number/);
    expect(refused('UUID', "x' OR 1=1").message).toMatch(/UUID/);
    expect(refused('FixedString(2)', 'abc').message).toMatch(/at most 2 bytes/);
    expect(refused('Array(UInt8)', 5).message).toMatch(/an array/);
    expect(refused('Date', 19_000).message).toMatch(/a Date or a date string/);
    expect(refused('DateTime', new Date(Number.NaN)).message).toMatch(/valid Date/);
  });

  it('never puts the value in the error (values may be private)', () => {
    const error = refused('UUID', 'secret-token-value');
    expect(error.message).not.toContain('secret-token-value');
  });

  it('writes strings as one escaped literal whatever they hold', () => {
    expect(stringLiteral("a'b\\c\0d\ne\tf\rg\bh\fi")).toBe("'a\\'b\\\\c\\0d\\ne\\tf\\rg\\bh\\fi'");
    expect(bindInline('SELECT {s:String}', { s: "'); DROP TABLE t; --" })).toBe(
      "SELECT '\\'); DROP TABLE t; --'",
    );
  });
});

describe('inline binding: the type grammar', () => {
  it('parses the types it binds and prints them canonically', () => {
    const cases: Array<[string, string]> = [
      ['UInt32', 'UInt32'],
      ['Nullable(String)', 'Nullable(String)'],
      ['Array( Nullable( Int64 ) )', 'Array(Nullable(Int64))'],
      ["DateTime('UTC')", "DateTime('UTC')"],
      ["DateTime64(6,'Asia/Kolkata')", "DateTime64(6, 'Asia/Kolkata')"],
      ['DateTime64(3)', 'DateTime64(3)'],
      ['LowCardinality(String)', 'LowCardinality(String)'],
      ['FixedString(16)', 'FixedString(16)'],
    ];
    for (const [text, canonical] of cases) {
      const type = parseBindType(text);
      expect(type, text).toBeDefined();
      expect(typeText(type as NonNullable<typeof type>)).toBe(canonical);
    }
  });

  it('knows nothing else', () => {
    for (const text of [
      'uint32',
      'Decimal(10,2)',
      "DateTime('UTC'); DROP TABLE t",
      "DateTime('U''TC')",
      'Array(UInt8',
      'Tuple(UInt8)',
      'Nullable(Nullable(Nullable(Nullable(Nullable(Nullable(Nullable(Nullable(Nullable(UInt8)))))))))',
    ]) {
      expect(parseBindType(text), text).toBeUndefined();
    }
  });
});
