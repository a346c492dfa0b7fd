import { describe, expect, it } from 'vitest';
import { instantScale, quoteIdentifier, utcInstantsSql } from '../src/query/time-columns.js';

describe('time-columns', () => {
  it('recognises every instant type ClickHouse describes, and nothing else', () => {
    expect(instantScale('DateTime')).toBe(0);
    expect(instantScale("DateTime('UTC')")).toBe(0);
    expect(instantScale("DateTime('Asia/Kolkata')")).toBe(0);
    expect(instantScale('DateTime64(3)')).toBe(3);
    expect(instantScale("DateTime64(6, 'UTC')")).toBe(6);
    expect(instantScale("Nullable(DateTime64(9, 'Europe/Berlin'))")).toBe(9);
    expect(instantScale("Nullable(DateTime('UTC'))")).toBe(0);
    for (const other of ['Date', 'Date32', 'UInt32', 'String', 'Array(DateTime)', "Tuple(DateTime('UTC'))"]) {
      expect(instantScale(other), other).toBeUndefined();
    }
  });

  it('wraps only when an instant column is not already DateTime64 in UTC, quoting any name', () => {
    const inner = 'SELECT 1';
    expect(utcInstantsSql(inner, [{ name: 'a', type: "DateTime64(6, 'UTC')" }])).toBe(inner);
    expect(utcInstantsSql(inner, [{ name: 'n', type: 'UInt32' }])).toBe(inner);
    expect(
      utcInstantsSql(inner, [
        { name: 'ltt', type: "DateTime('UTC')" },
        { name: 'we`ird\\', type: 'DateTime64(3)' },
        { name: 'n', type: 'UInt32' },
      ]),
    ).toBe(
      "SELECT * REPLACE (toDateTime64(`ltt`, 0, 'UTC') AS `ltt`, toDateTime64(`we\\`ird\\\\`, 3, 'UTC') AS `we\\`ird\\\\`) FROM (\nSELECT 1\n)",
    );
    expect(quoteIdentifier('plain')).toBe('`plain`');
  });
});
