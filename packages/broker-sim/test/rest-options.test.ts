/**
 * The REST simulator's options, read once: an unknown key (of the options or of a section) is
 * refused with the allowed list, a bad value named, an INVALID_OPTION SimError; the defaults filled in.
 */
import { describe, expect, it } from 'vitest';
import { MarketModel, type SimError } from '../src/index.js';
import { type RestServerOptions, resolveOptions } from '../src/rest/options.js';

const model = new MarketModel({ seed: 1 });

/** `options` are refused with an INVALID_OPTION SimError whose message contains `message`. */
function expectRefusal(options: object, message: string): void {
  expect(() => resolveOptions(options as RestServerOptions)).toThrow(
    expect.objectContaining({
      name: 'SimError',
      code: 'INVALID_OPTION',
      message: expect.stringContaining(message),
    }) as unknown as SimError,
  );
}

describe('REST simulator options', () => {
  it('refuses an unknown key with the allowed list, in the options and in a section', () => {
    expectRefusal(
      { model, prot: 1 },
      'createRestServer options: unknown option "prot" (allowed: model, host, port, now, rateLimits, accounts, matching, matchIntervalMs, postbacks, tokenLifetimeMs, oneTokenPerAccount, onRateDecision)',
    );
    expectRefusal(
      { model, matching: { tick: 5 } },
      'unknown option "matching.tick" (allowed: tickMs, liquidityPerTick, freezeQuantity)',
    );
    expectRefusal(
      { model, postbacks: { retries: 3 } },
      'unknown option "postbacks.retries" (allowed: giveUpAfterMs,',
    );
  });

  it('names bad values and fills in the defaults', () => {
    expectRefusal({ model, port: 70_000 }, '"port" must be an integer from 0 to 65535');
    expectRefusal({ model, tokenLifetimeMs: 10 }, '"tokenLifetimeMs" must be an integer from 1000');
    expectRefusal({}, '"model" is required');
    expectRefusal({ model, accounts: [] }, '"accounts" must be a non-empty array');
    expectRefusal(
      { model, postbacks: { retryBaseMs: 100, retryMaxMs: 10 } },
      '"retryMaxMs" must be at least "retryBaseMs"',
    );
    const resolved = resolveOptions({ model, matching: { tickMs: 50 } });
    expect(resolved).toMatchObject({ host: '127.0.0.1', port: 0, rateLimits: true, matchIntervalMs: 200 });
    expect(resolved.matching).toEqual({ tickMs: 50, liquidityPerTick: 1000, freezeQuantity: 10_000 });
    expect(resolved.postbacks.giveUpAfterMs).toBe(60_000);
  });
});
