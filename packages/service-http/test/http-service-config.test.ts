/** The configuration both HTTP services share: defaults, the service's own port, refusals that name the key. */
import { describe, expect, it } from 'vitest';
import { HTTP_SERVICE_KEYS, resolveHttpServiceConfig, section } from '../src/index.js';

const resolve = (config: object, port = 8080) =>
  resolveHttpServiceConfig(section(config, 'svc config', [...HTTP_SERVICE_KEYS, 'own']), 'svc config', port);

describe('resolveHttpServiceConfig', () => {
  it('fills every default, with the port the service gives', () => {
    expect(resolve({}, 8090)).toEqual({
      host: '127.0.0.1',
      port: 8090,
      logLevel: false,
      docs: true,
      rateLimit: { perSecond: 50, burst: 100 },
      addressLimit: { perSecond: 500, burst: 1_000, failuresPerSecond: 1, failureBurst: 50 },
      failedSecrets: { maxFailures: 10, windowMs: 60_000, blockMs: 60_000 },
      keyCacheMs: 5_000,
    });
    expect(
      resolve({ host: '::1', port: 0, logLevel: 'debug', docs: false, rateLimit: { burst: 7 }, own: 1 }),
    ).toMatchObject({
      host: '::1',
      port: 0,
      logLevel: 'debug',
      docs: false,
      rateLimit: { perSecond: 50, burst: 7 },
    });
  });

  it('refuses bad values and unknown keys, naming them', () => {
    expect(() => resolve({ prot: 1 })).toThrow(/unknown option "prot"/);
    expect(() => resolve({ port: 70_000 })).toThrow(/"port" must be an integer from 0 to 65535/);
    expect(() => resolve({ logLevel: 3 })).toThrow(/"logLevel" must be false or one of fatal/);
    expect(() => resolve({ logLevel: 'loud' })).toThrow(/"logLevel" must be one of/);
    expect(() => resolve({ rateLimit: { perMinute: 1 } })).toThrow(
      /svc config.rateLimit: unknown option "perMinute"/,
    );
    expect(() => resolve({ keyCacheMs: -1 })).toThrow(/"keyCacheMs"/);
    expect(() => resolve({ addressLimit: { failureBurst: 0 } })).toThrow(/addressLimit: "failureBurst"/);
    expect(() => resolve({ failedSecrets: { tries: 3 } })).toThrow(/failedSecrets: unknown option "tries"/);
  });
});
