/** QUERY_API_INSTRUMENTS_FILE: JSON and CSV lists of symbols, and the errors that name the file and row. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { readInstrumentList } from '../src/index.js';

const dir = tempDir('instrument-list');
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('readInstrumentList', () => {
  it('reads a JSON array or { instruments }, with either spelling of symbol and segment', () => {
    const path = file(
      'a.json',
      JSON.stringify([
        { securityId: 2885, symbol: 'RELIANCE', segment: 'NSE_EQ' },
        { securityId: '11536', tradingSymbol: 'TCS', exchangeSegment: 'NSE_EQ' },
        { securityId: 13 },
      ]),
    );
    expect(readInstrumentList(path)).toEqual([
      { securityId: 2885, symbol: 'RELIANCE', segment: 'NSE_EQ' },
      { securityId: 11536, symbol: 'TCS', segment: 'NSE_EQ' },
      { securityId: 13 },
    ]);
    const wrapped = file('b.json', JSON.stringify({ instruments: [{ securityId: 1, symbol: 'A' }] }));
    expect(readInstrumentList(wrapped)).toEqual([{ securityId: 1, symbol: 'A' }]);
  });

  it('reads a CSV with a securityId column and optional symbol and segment', () => {
    const path = file('c.csv', 'securityId,exchangeSegment,symbol\n1000001,INX_EQ,ACME\n\n1000002,INX_EQ,\n');
    expect(readInstrumentList(path)).toEqual([
      { securityId: 1_000_001, segment: 'INX_EQ', symbol: 'ACME' },
      { securityId: 1_000_002, segment: 'INX_EQ' },
    ]);
  });

  it('refuses a bad file with CONFIG_INVALID naming the file and the entry', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['bad.json', '{ nope', /bad\.json: not JSON/],
      ['obj.json', '{"x": 1}', /expected an array/],
      ['id.json', '[{"securityId": 1}, {"securityId": "abc"}]', /entry 1: securityId must be an id/],
      ['row.json', '[1]', /entry 0: expected an object/],
      ['cols.csv', 'symbol\nACME\n', /needs a securityId column/],
      ['line.csv', 'securityId,symbol\n1,A\n0,B\n', /line 3: securityId/],
    ];
    for (const [name, text, message] of cases) {
      expect(() => readInstrumentList(file(name, text))).toThrow(message);
      try {
        readInstrumentList(file(name, text));
      } catch (error) {
        expect((error as { code?: string }).code).toBe('CONFIG_INVALID');
      }
    }
    expect(() => readInstrumentList(join(dir, 'missing.json'))).toThrow(
      /missing\.json: cannot be read \(ENOENT\)/,
    );
  });
});
