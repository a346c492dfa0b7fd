/** The configuration schema helper: typed defaults, every bad value named with what is allowed. */
import { describe, expect, it } from 'vitest';
import { allowedOf, defaultOf, type EnvSchema, loadEnv, readEnv } from '../src/index.js';

const SCHEMA = {
  APP_PORT: { type: 'integer', min: 0, max: 65_535, default: 8080, description: 'port' },
  APP_LEVEL: { type: 'enum', values: ['info', 'debug'], default: 'info', description: 'level' },
  APP_URL: { type: 'url', protocols: ['ws', 'wss'], required: true, description: 'feed' },
  APP_TOKEN: { type: 'string', required: true, secret: true, description: 'token' },
  BROKERS: {
    type: 'list',
    entry: { pattern: /^[\w.-]+:\d+$/, allowed: 'host:port' },
    unset: 'none',
    description: 'brokers',
  },
  APP_SECRET_NUMBER: { type: 'integer', min: 1, max: 9, unset: 'off', secret: true, description: 'pin' },
} as const satisfies EnvSchema;

describe('readEnv', () => {
  it('applies typed defaults and parses what is given (trimmed; blank is unset)', () => {
    const { values, problems } = readEnv(SCHEMA, {
      APP_URL: ' wss://feed ',
      APP_TOKEN: 't',
      APP_PORT: ' ',
      BROKERS: 'a:1, b:2,,',
    });
    expect(problems).toEqual([]);
    expect(values).toEqual({
      APP_PORT: 8080,
      APP_LEVEL: 'info',
      APP_URL: 'wss://feed',
      APP_TOKEN: 't',
      BROKERS: ['a:1', 'b:2'],
      APP_SECRET_NUMBER: undefined,
    });
  });

  it('names every bad value with what is allowed, never echoing a secret', () => {
    const { problems } = readEnv(
      SCHEMA,
      {
        APP_PORT: '70000',
        APP_LEVEL: 'loud',
        APP_URL: 'http://x',
        BROKERS: 'nohost',
        APP_SECRET_NUMBER: '12345',
      },
      { ownPrefixes: ['APP_'] },
    );
    expect(problems).toEqual([
      'APP_PORT must be an integer in 0..65535, got "70000"',
      'APP_LEVEL must be one of info, debug, got "loud"',
      'APP_URL must start with ws:// or wss://',
      'APP_TOKEN is required',
      'BROKERS entry "nohost" must be host:port',
      'APP_SECRET_NUMBER must be an integer in 1..9, got (not shown)',
    ]);
  });

  it("refuses an unknown variable under the service's own prefixes only", () => {
    const { problems } = readEnv(
      SCHEMA,
      { APP_URL: 'ws://x', APP_TOKEN: 't', APP_PROT: '1', OTHER_THING: '1' },
      { ownPrefixes: ['APP_'] },
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^APP_PROT is not a known variable \(known APP_\* variables: APP_PORT, /);
  });

  it('loadEnv throws the caller-made error listing the problems', () => {
    expect(() => loadEnv(SCHEMA, {}, (p) => new Error(p.join('; ')))).toThrow(
      /APP_URL is required; APP_TOKEN/,
    );
  });

  it('describes defaults and allowed values as the docs show them', () => {
    expect(defaultOf(SCHEMA.APP_PORT)).toBe('`8080`');
    expect(defaultOf(SCHEMA.APP_URL)).toBe('required');
    expect(defaultOf(SCHEMA.BROKERS)).toBe('unset: none');
    expect(allowedOf(SCHEMA.APP_PORT)).toBe('0..65535');
    expect(allowedOf(SCHEMA.APP_LEVEL)).toBe('info, debug');
    expect(allowedOf(SCHEMA.BROKERS)).toBe('host:port[,host:port...]');
  });
});
