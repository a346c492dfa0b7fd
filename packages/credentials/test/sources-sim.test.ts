// test-tier: integration
/**
 * Each token source against the simulator (one token per account, short token lifetimes): the
 * static token's metric and warning, the web token renewed with RenewToken ahead of expiry, TOTP
 * generation with a REST refusal answered by one renewal however many callers, and the token file
 * re-read when it changes. Secrets never reach a log line, an error or the metrics.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerClient, isBrokerApiError } from '@feedpipe/broker-api';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '@feedpipe/broker-sim';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Credentials,
  type CredentialsConfig,
  FileIssuer,
  issuerFor,
  startCredentials,
  TOKEN_METRIC_NAMES,
} from '../src/index.js';

const ONE = SIM_TEST_ACCOUNTS[0]!;
let sim: Simulator | undefined;
const started: Credentials[] = [];

afterEach(async () => {
  for (const c of started.splice(0)) await c.stop();
  await sim?.close();
  sim = undefined;
});

async function startSim(tokenLifetimeMs: number): Promise<Simulator> {
  sim = await createSimulator({
    seed: 9,
    instruments: 20,
    feed: { port: 0 },
    rest: restServerHook({ tokenLifetimeMs, oneTokenPerAccount: true, rateLimits: false }),
  });
  return sim;
}

function restOf(s: Simulator) {
  const server = s.rest?.server;
  if (server === undefined) throw new Error('the simulator has no REST server');
  return server;
}

function config(s: Simulator, extra: Partial<CredentialsConfig>): CredentialsConfig {
  return {
    clientId: ONE.clientId,
    source: 'static',
    baseUrl: s.rest?.baseUrl as string,
    authUrl: s.rest?.authUrl as string,
    renewAheadMs: 10_000,
    warnAheadMs: 21_600_000,
    leaseMs: 30_000,
    totpSkewMs: 0,
    pollMs: 100,
    ...extra,
  };
}

async function profileStatus(s: Simulator, token: string): Promise<number> {
  const response = await fetch(`${s.rest?.baseUrl}/v2/profile`, { headers: { 'access-token': token } });
  await response.arrayBuffer();
  return response.status;
}

/** Log lines, errors and metrics must hold none of these. */
function expectNoSecrets(texts: readonly string[], secrets: readonly string[]): void {
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('static token', () => {
  it('reports seconds to expiry, warns ahead of expiry, and cannot renew (TOKEN_EXPIRED)', async () => {
    const s = await startSim(3_600_000);
    const token = restOf(s).tokens.issue(ONE.clientId, 'TOTP').token;
    const registry = new Registry();
    const logs: string[] = [];
    // A 1 h token with a 6 h warning horizon: the warning is due at once.
    const creds = await startCredentials(config(s, { source: 'static', accessToken: token }), {
      registry,
      log: (m) => logs.push(m),
    });
    started.push(creds);
    expect(await creds.getToken()).toBe(token);
    const metrics = await registry.metrics();
    const expiry = Number(
      new RegExp(`${TOKEN_METRIC_NAMES.expiry}\\{source="static"\\} (-?\\d+)`).exec(metrics)?.[1],
    );
    expect(expiry).toBeGreaterThan(3_500);
    expect(expiry).toBeLessThanOrEqual(3_600);
    expect(metrics).toContain(`${TOKEN_METRIC_NAMES.renewable}{source="static"} 0`);
    await waitFor(() => logs.some((l) => l.includes('WARNING')), 10_000, 'the expiry warning');
    expect(logs.find((l) => l.includes('WARNING'))).toMatch(/expires in (59|60) min/);
    const refusal = await creds.tokenRejected(token).catch((e: unknown) => e);
    expect(isBrokerApiError(refusal) && refusal.code).toBe('TOKEN_EXPIRED');
    expectNoSecrets([...logs, metrics, String(refusal)], [token]);
  });
});

describe('web-console token', () => {
  it('is renewed with RenewToken ahead of expiry; the old token stops, the new one works', async () => {
    const s = await startSim(8_000);
    const web = restOf(s).tokens.issue(ONE.clientId, 'WEB').token;
    const logs: string[] = [];
    const creds = await startCredentials(config(s, { source: 'web', accessToken: web }), {
      log: (m) => logs.push(m),
    });
    started.push(creds);
    const changes: string[] = [];
    creds.onChange((t) => changes.push(t));
    // 8 s tokens renew a quarter of their life ahead: about 6 s in.
    await waitFor(() => changes.length >= 1, 30_000, 'a renewal');
    const renewed = await creds.getToken();
    expect(renewed).not.toBe(web);
    expect(await profileStatus(s, web)).toBe(401);
    expect(await profileStatus(s, renewed)).toBe(200);
    expect(creds.status()).toMatchObject({ source: 'web', role: 'alone', renewals: 1 });
    expectNoSecrets(logs, [web, renewed]);
  });
});

describe('TOTP', () => {
  it('generates a token; a REST refusal of it is one renewal however many calls, each retried once', async () => {
    const s = await startSim(3_600_000);
    const logs: string[] = [];
    const registry = new Registry();
    const creds = await startCredentials(
      config(s, { source: 'totp', pin: ONE.pin, totpSecret: ONE.totpSecret }),
      {
        registry,
        log: (m) => logs.push(m),
      },
    );
    started.push(creds);
    const first = await creds.getToken();
    expect(await profileStatus(s, first)).toBe(200);
    // Another login for the account ends this token (one token per account).
    restOf(s).tokens.issue(ONE.clientId, 'TOTP');
    expect(await profileStatus(s, first)).toBe(401);
    const client = new BrokerClient({
      baseUrl: s.rest?.baseUrl as string,
      clientId: ONE.clientId,
      accessToken: creds,
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.account.profile()));
    expect(answers.every((a) => a.svcClientId === ONE.clientId)).toBe(true);
    expect(creds.status().renewals).toBe(1);
    const second = await creds.getToken();
    expect(second).not.toBe(first);
    const metrics = await registry.metrics();
    expect(metrics).toContain(`${TOKEN_METRIC_NAMES.renewals}{source="totp",result="ok"} 1`);
    expectNoSecrets([...logs, metrics], [first, second, ONE.pin, ONE.totpSecret]);
  }, 90_000);

  it('a wrong PIN is a clear error that names what to check and holds no secret', async () => {
    const s = await startSim(3_600_000);
    const error = await startCredentials(
      config(s, { source: 'totp', pin: '000000', totpSecret: ONE.totpSecret }),
    ).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('check SVC_PIN, SVC_TOTP_SECRET');
    expectNoSecrets([(error as Error).message, String((error as Error).cause)], ['000000', ONE.totpSecret]);
  }, 90_000);
});

describe('token file', () => {
  it('is re-read when it changes, and a refused token waits for the next one', async () => {
    const s = await startSim(3_600_000);
    const dir = tempDir('credentials-file');
    const path = join(dir, 'token');
    const first = restOf(s).tokens.issue(ONE.clientId, 'APP').token;
    writeFileSync(path, `${first}\n`, { mode: 0o600 });
    const cfg = config(s, { source: 'file', tokenFile: path });
    expect(issuerFor(cfg).kind).toBe('file');
    const logs: string[] = [];
    const creds = new Credentials({
      config: cfg,
      issuer: new FileIssuer(path, { waitMs: 20_000, pollMs: 50 }),
      log: (m) => logs.push(m),
    });
    started.push(creds);
    await creds.start();
    const changes: string[] = [];
    creds.onChange((t) => changes.push(t));
    expect(await creds.getToken()).toBe(first);
    const second = restOf(s).tokens.issue(ONE.clientId, 'APP').token;
    writeFileSync(path, second);
    await waitFor(() => changes.length === 1, 10_000, 'the changed file read');
    expect(await creds.getToken()).toBe(second);
    // Refused: the operator's tooling writes a new token a little later.
    const waiting = creds.tokenRejected(second);
    const third = restOf(s).tokens.issue(ONE.clientId, 'APP').token;
    setTimeout(() => writeFileSync(path, third), 300);
    expect(await waiting).toBe(third);
    expect(await profileStatus(s, third)).toBe(200);
    expectNoSecrets(logs, [first, second, third]);
  });
});
