/** The configuration both HTTP services share: defaults, the service's own port, refusals that name the key. */

import { connectionCeiling, FALLBACK_MAX_CONNECTIONS, openFileLimit } from '@feedpipe/service-kit';
import { describe, expect, it } from 'vitest';
import { readServiceConfig, resolveHttpServiceConfig } from '../src/index.js';

/** As on a process whose open-file limit is 20,000: at most 10,000 connections for its API servers. */
const resolve = (config: object, port = 8080) =>
  resolveHttpServiceConfig(
    readServiceConfig({ own: { kind: 'given' } }, config, 'svc config'),
    'svc config',
    port,
    connectionCeiling(20_000),
  );

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
      server: {
        idleTimeoutMs: 10_000,
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
        checkIntervalMs: 1_000,
        maxConnections: 10_000,
        maxConnectionsPerAddress: 256,
        bodyLimitBytes: 1_048_576,
      },
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

  it('keeps the connection cap below the open-file limit, whatever is configured', () => {
    expect(resolve({ server: { maxConnections: 500 } }).server.maxConnections).toBe(500);
    expect(resolve({ server: { maxConnections: 1_000_000 } }).server.maxConnections).toBe(10_000);
    expect(resolve({ server: { maxConnectionsPerAddress: 8 } }).server.maxConnectionsPerAddress).toBe(8);
    expect(() => resolve({ server: { maxConnectionsPerAddress: 0 } })).toThrow(/maxConnectionsPerAddress/);
    const limits =
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 1048576              files\n';
    expect(openFileLimit(limits)).toBe(1024);
    expect(connectionCeiling(openFileLimit(limits))).toBe(512);
    expect(
      openFileLimit('Max open files            unlimited            unlimited            files'),
    ).toBeUndefined();
    expect(connectionCeiling(undefined)).toBe(FALLBACK_MAX_CONNECTIONS);
    // This process's own limit, read from /proc where there is one.
    const own = openFileLimit();
    if (own !== undefined) expect(connectionCeiling(own)).toBeLessThan(own);
  });

  it('refuses bad values and unknown keys, naming them', () => {
    expect(() => resolve({ prot: 1 })).toThrow(
      /^svc config: unknown option "prot" \(allowed: host, port,.* own\)/,
    );
    expect(() => resolve({ port: 70_000 })).toThrow(/"port" must be an integer from 0 to 65535/);
    expect(() => resolve({ logLevel: 3 })).toThrow(
      '"logLevel" must be one of false, fatal, error, warn, info, debug',
    );
    expect(() => resolve({ logLevel: 'loud' })).toThrow(/"logLevel" must be one of/);
    expect(() => resolve({ rateLimit: { perMinute: 1 } })).toThrow(
      'svc config: unknown option "rateLimit.perMinute" (allowed: perSecond, burst)',
    );
    expect(() => resolve({ keyCacheMs: -1 })).toThrow(/"keyCacheMs"/);
    expect(() => resolve({ addressLimit: { failureBurst: 0 } })).toThrow(/"addressLimit.failureBurst"/);
    expect(() => resolve({ failedSecrets: { tries: 3 } })).toThrow(/unknown option "failedSecrets.tries"/);
    expect(() => resolve({ server: { idleTimeout: 3 } })).toThrow(/unknown option "server.idleTimeout"/);
    expect(() => resolve({ server: { headersTimeoutMs: 40_000 } })).toThrow(
      /"server.headersTimeoutMs" \(40000\) must not exceed "server.requestTimeoutMs" \(30000\)/,
    );
  });
});
