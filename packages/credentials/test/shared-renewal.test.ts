/**
 * The account's processes split as in production (child processes) share one token and one renewal
 * through SVC_TOKEN_SHARE_DIR, against a simulator that keeps one token per account (a second
 * renewal would end the others' token). Killing the renewal owner: the others go on with the
 * current token, one of them takes the lease over and renewal resumes. Every token the simulator
 * issued is one the processes used: no renewal was wasted or duplicated.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '@feedpipe/broker-sim';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(here, '..', '..', '..');
const CHILD = join(here, 'support', 'share-child.ts');
const ONE = SIM_TEST_ACCOUNTS[0]!;

interface Line {
  pid: number;
  at: number;
  event: string;
  role?: string;
  hash?: string;
  ok?: boolean;
  error?: string;
  message?: string;
}

let sim: Simulator | undefined;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await sim?.close();
});

function startChild(env: Record<string, string>, lines: Line[]): ChildProcess {
  // node --import tsx, not the tsx CLI: the CLI runs the script in a grandchild, and the test must
  // kill the very process that holds the lease.
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) if (p.trim() !== '') lines.push(JSON.parse(p) as Line);
  });
  children.push(child);
  return child;
}

describe('one token and one renewal shared by split processes', () => {
  it('survives the renewal owner being killed: the others go on, one takes over, renewal resumes', async () => {
    sim = await createSimulator({
      seed: 4,
      instruments: 20,
      feed: { port: 0 },
      rest: restServerHook({ tokenLifetimeMs: 30_000, oneTokenPerAccount: true, rateLimits: false }),
    });
    const store = sim.rest?.server?.tokens;
    if (store === undefined) throw new Error('no REST token store');
    let issued = 0;
    const issue = store.issue.bind(store);
    store.issue = (clientId, src) => {
      issued++;
      return issue(clientId, src);
    };
    const shareDir = join(tempDir('credentials-share'), 'tokens');
    const env = {
      SVC_CLIENT_ID: ONE.clientId,
      SVC_TOKEN_SOURCE: 'totp',
      SVC_PIN: ONE.pin,
      SVC_TOTP_SECRET: ONE.totpSecret,
      SVC_AUTH_URL: sim.rest?.authUrl ?? '',
      SVC_BASE_URL: sim.rest?.baseUrl ?? '',
      SVC_TOKEN_SHARE_DIR: shareDir,
      SVC_TOKEN_LEASE_S: '3',
      SVC_TOKEN_POLL_MS: '200',
      SVC_TOKEN_RENEW_AHEAD_S: '10',
    };
    const lines: Line[] = [];
    const procs = [0, 1, 2].map(() => startChild(env, lines));
    const startedOf = () => lines.filter((l) => l.event === 'started');
    await waitFor(
      () => startedOf().length === 3,
      120_000,
      () => `3 started, saw ${JSON.stringify(lines.slice(-5))}`,
    );
    const owners = startedOf().filter((l) => l.role === 'owner');
    expect(owners).toHaveLength(1);
    expect(new Set(startedOf().map((l) => l.hash)).size).toBe(1);

    // The shared files: the token readable by this user only, no PIN or TOTP secret anywhere.
    expect(statSync(shareDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(shareDir, `token-${ONE.clientId}.json`)).mode & 0o777).toBe(0o600);
    for (const name of readdirSync(shareDir)) {
      const text = readFileSync(join(shareDir, name), 'utf8');
      expect(text).not.toContain(ONE.pin);
      expect(text).not.toContain(ONE.totpSecret);
    }

    const ownerPid = owners[0]?.pid;
    const owner = procs.find((p) => p.pid === ownerPid);
    owner?.kill('SIGKILL');
    const killedAt = Date.now();
    const survivors = procs.filter((p) => p !== owner).map((p) => p.pid);
    const after = (l: Line) => l.at > killedAt && survivors.includes(l.pid);

    // The others go on with the current token...
    await waitFor(
      () =>
        survivors.every((pid) => lines.some((l) => after(l) && l.pid === pid && l.event === 'call' && l.ok)),
      60_000,
      () =>
        `calls of both survivors after the kill, saw ${JSON.stringify(lines.filter((l) => survivors.includes(l.pid)).slice(-8))}`,
    );
    // ...one takes the lease over, and the renewal resumes: both follow the new token.
    await waitFor(
      () => lines.some((l) => after(l) && l.event === 'role' && l.role === 'owner'),
      60_000,
      'a takeover',
    );
    await waitFor(
      () => survivors.every((pid) => lines.some((l) => after(l) && l.pid === pid && l.event === 'token')),
      120_000,
      () => `a renewal after the takeover, saw ${JSON.stringify(lines.filter(after).slice(-6))}`,
    );
    const renewedHash = lines.find((l) => after(l) && l.event === 'token')?.hash;
    expect(
      survivors.every((pid) =>
        lines.some((l) => l.pid === pid && l.event === 'token' && l.hash === renewedHash),
      ),
    ).toBe(true);
    // Calls with the renewed token work for both (a refused old token is renewed-and-retried, not lost).
    const renewedAt = lines.find((l) => after(l) && l.event === 'token')?.at ?? 0;
    await waitFor(
      () =>
        survivors.every((pid) =>
          lines.some((l) => l.pid === pid && l.event === 'call' && l.ok && l.at > renewedAt + 500),
        ),
      30_000,
      'calls after the renewal',
    );
    const failed = lines.filter((l) => after(l) && l.event === 'call' && !l.ok);
    expect(failed).toEqual([]);
    // One renewal per account, not per process: every token issued is one the processes used.
    const seen = new Set(lines.filter((l) => l.hash !== undefined).map((l) => l.hash));
    expect(issued).toBe(seen.size);
    expect(issued).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(JSON.stringify(l)).not.toContain(ONE.pin);
    for (const p of procs) if (p !== owner) p.kill('SIGTERM');
  }, 300_000);
});
