/** The declarative options reader: defaults, ranges, required keys, unknown keys with the allowed list. */
import { describe, expect, it } from 'vitest';
import { type OptionsSchema, readOptions, section } from '../src/index.js';

class ProbeError extends Error {
  readonly code = 'CONFIG_INVALID';
}

const SCHEMA = {
  brokers: { kind: 'list', minLength: 1, required: true },
  batchRows: { kind: 'integer', min: 1, max: 1_000, default: 100 },
  ratio: { kind: 'number', min: 0, max: 1, default: 0.5 },
  enabled: { kind: 'boolean', default: true },
  group: { kind: 'string', default: 'g' },
  level: { kind: 'enum', values: ['info', 'debug'], default: 'info' },
  timeoutMs: { kind: 'integer', min: 0, max: 60_000 },
  log: { kind: 'given' },
} as const satisfies OptionsSchema;

const context = { where: 'probe', fail: (message: string) => new ProbeError(message) };

function refusal(given: object): string {
  try {
    readOptions(SCHEMA, given, context);
  } catch (error) {
    expect(error).toBeInstanceOf(ProbeError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(given)}`);
}

describe('readOptions', () => {
  it('fills in every default and keeps what is given', () => {
    const log = (): void => undefined;
    const values = readOptions(SCHEMA, { brokers: ['127.0.0.1:9092'], batchRows: 7, log }, context);
    expect(values).toEqual({
      brokers: ['127.0.0.1:9092'],
      batchRows: 7,
      ratio: 0.5,
      enabled: true,
      group: 'g',
      level: 'info',
      timeoutMs: undefined,
      log,
    });
  });

  it('refuses an unknown key and names every allowed one', () => {
    expect(refusal({ brokers: ['a:1'], batchRow: 5 })).toBe(
      'probe: unknown option "batchRow" (allowed: brokers, batchRows, ratio, enabled, group, level, timeoutMs, log)',
    );
  });

  it('says what each bad value should be, all problems in one message', () => {
    const message = refusal({
      brokers: [],
      batchRows: 1_001,
      ratio: Number.NaN,
      enabled: 'yes',
      group: '',
      level: 'trace',
      timeoutMs: 1.5,
    });
    expect(message).toContain('"brokers" must be a list of at least 1');
    expect(message).toContain('"batchRows" must be an integer from 1 to 1000');
    expect(message).toContain('"ratio" must be a number from 0 to 1');
    expect(message).toContain('"enabled" must be true or false');
    expect(message).toContain('"group" must be a non-empty string');
    expect(message).toContain('"level" must be one of info, debug');
    expect(message).toContain('"timeoutMs" must be an integer from 0 to 60000');
  });

  it('requires a required key, and takes an undefined value as absent', () => {
    expect(refusal({})).toBe('probe: "brokers" is required (a list of at least 1)');
    expect(readOptions(SCHEMA, { brokers: ['a:1'], batchRows: undefined }, context).batchRows).toBe(100);
  });

  it('takes a URL only with one of its schemes', () => {
    const urls = {
      feed: { kind: 'url', protocols: ['ws', 'wss'], required: true },
    } as const satisfies OptionsSchema;
    expect(readOptions(urls, { feed: 'WSS://127.0.0.1:1/' }, context).feed).toBe('WSS://127.0.0.1:1/');
    for (const feed of ['http://127.0.0.1:1/', '127.0.0.1:1', 'ws:/x', 7]) {
      expect(() => readOptions(urls, { feed }, context)).toThrow(
        'probe: "feed" must be a ws:// or wss:// URL',
      );
    }
  });

  it('reads a section in the same pass, its defaults filled in when it is absent', () => {
    const plan = {
      until: { kind: 'pattern', pattern: /^\d{4}-\d{2}-\d{2}$/, allowed: 'a date YYYY-MM-DD' },
      intraday: section({
        intervals: { kind: 'list', values: [1, 5, 15], default: [5] },
        interval: { kind: 'enum', values: [1, 5, 15], default: 1 },
      }),
    } as const satisfies OptionsSchema;
    expect(readOptions(plan, {}, context)).toEqual({
      until: undefined,
      intraday: { intervals: [5], interval: 1 },
    });
    expect(readOptions(plan, { intraday: { intervals: [1, 15] } }, context).intraday.intervals).toEqual([
      1, 15,
    ]);
    expect(() =>
      readOptions(plan, { until: '2024-1-1', intraday: { intervals: [2], interval: '5', days: 3 } }, context),
    ).toThrow(
      'probe: "until" must be a date YYYY-MM-DD; unknown option "intraday.days" (allowed: intervals, interval); ' +
        '"intraday.intervals" must be a list of 1, 5, 15; "intraday.interval" must be one of 1, 5, 15',
    );
    expect(() => readOptions(plan, { intraday: 5 }, context)).toThrow('probe: "intraday" must be an object');
  });

  it('refuses options that are not an object', () => {
    expect(() => readOptions(SCHEMA, [] as unknown as object, context)).toThrow(
      'probe: the options must be an object',
    );
  });
});
