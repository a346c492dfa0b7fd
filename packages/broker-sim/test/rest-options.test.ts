/**
 * The REST simulator's options, read once: an unknown key (of the options or of a section) is
 * refused with the allowed list, a bad value named, an INVALID_OPTION SimError; the defaults filled in.
 */
import { describe, expect, it } from 'vitest';
import { MarketModel, SimError } from '../src/index.js';
import { type RestServerOptions, resolveOptions } from '../src/rest/options.js';

const model = new MarketModel({ seed: 1 });

function refusal(options: object): SimError {
  try {
    resolveOptions(options as RestServerOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(SimError);
    expect((error as SimError).code).toBe('INVALID_OPTION');
    return error as SimError;
  }
  throw new Error('the options were accepted');
}

describe('REST simulator options', () => {
  it('refuses an unknown key with the allowed list, in the options and in a section', () => {
    expect(refusal({ model, prot: 1 }).message).toBe(
      'createRestServer options: unknown option "prot" (allowed: model, host, port, now, rateLimits, accounts, matching, matchIntervalMs, postbacks, tokenLifetimeMs, oneTokenPerAccount, onRateDecision)',
    );
    expect(refusal({ model, matching: { tick: 5 } }).message).toContain(
      'unknown option "matching.tick" (allowed: tickMs, liquidityPerTick, freezeQuantity)',
    );
    expect(refusal({ model, postbacks: { retries: 3 } }).message).toContain(
      'unknown option "postbacks.retries" (allowed: giveUpAfterMs,',
    );
  });

  it('names bad values and fills in the defaults', () => {
    expect(refusal({ model, port: 70_000 }).message).toContain('"port" must be an integer from 0 to 65535');
    expect(refusal({ model, tokenLifetimeMs: 10 }).message).toContain(
      '"tokenLifetimeMs" must be an integer from 1000',
    );
    expect(refusal({}).message).toContain('"model" is required');
    expect(refusal({ model, accounts: [] }).message).toContain('"accounts" must be a non-empty array');
    expect(refusal({ model, postbacks: { retryBaseMs: 100, retryMaxMs: 10 } }).message).toContain(
      '"retryMaxMs" must be at least "retryBaseMs"',
    );
    const resolved = resolveOptions({ model, matching: { tickMs: 50 } });
    expect(resolved).toMatchObject({ host: '127.0.0.1', port: 0, rateLimits: true, matchIntervalMs: 200 });
    expect(resolved.matching).toEqual({ tickMs: 50, liquidityPerTick: 1000, freezeQuantity: 10_000 });
    expect(resolved.postbacks.giveUpAfterMs).toBe(60_000);
  });
});
