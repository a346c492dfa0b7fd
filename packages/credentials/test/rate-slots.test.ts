/**
 * The quote category's slots shared by an account's processes through files (FileRateSlots): first
 * the claim rules on a fake clock, then two real child processes asking for quotes as fast as their
 * limiters allow, against the simulator with its rate limits on. Sharing a directory they keep to
 * the category's 1 request a second together with no throttled answer; each with its own
 * directory (pacing itself alone) they are throttled, which shows the check can fail.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '@feedpipe/broker-api';
import { createRestServer, MarketModel, type RestServer, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRateSlots } from '../src/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(here, '..', '..', '..');
const CHILD = join(here, 'support', 'quote-child.ts');
const ONE = SIM_TEST_ACCOUNTS[0]!;
const QUOTE = DEFAULT_LIMITS.quote;

describe('FileRateSlots: the claim rules', () => {
  it('grants one slot a window to all instances of a directory, and a moved grant moves the next slot', () => {
    const dir = tempDir('rate-slots-rules');
    const a = new FileRateSlots(dir, 'acct', ['quote']);
    const b = new FileRateSlots(dir, 'acct', ['quote']);
    const first = a.claim('quote', QUOTE, 10_000, 8);
    expect(first.granted).toBe(true);
    // The other process sees the grant: nothing before a window and the margin after it.
    expect(b.claim('quote', QUOTE, 10_500, 8)).toEqual({ granted: false, retryAt: 11_008 });
    if (!first.granted) return;
    // The first request left late (30 ms after its grant): the next slot follows its real send.
    a.moveLater(first.ticket, 10_030);
    expect(b.claim('quote', QUOTE, 11_008, 8)).toEqual({ granted: false, retryAt: 11_038 });
    // Moving earlier is ignored: a grant only ever moves later.
    a.moveLater(first.ticket, 10_001);
    const second = b.claim('quote', QUOTE, 11_038, 8);
    expect(second.granted).toBe(true);
    expect(a.claim('quote', QUOTE, 11_500, 8)).toEqual({ granted: false, retryAt: 12_046 });
  });

  it('serves the process that began waiting first when a slot frees, not the quickest to ask', () => {
    const dir = tempDir('rate-slots-order');
    const poller = new FileRateSlots(dir, 'acct', ['quote']);
    const gateway = new FileRateSlots(dir, 'acct', ['quote']);
    expect(poller.claim('quote', QUOTE, 0, 8).granted).toBe(true);
    // The gateway asks at 100 and waits; the poller asks again at 500.
    expect(gateway.claim('quote', QUOTE, 100, 8)).toEqual({ granted: false, retryAt: 1008 });
    expect(poller.claim('quote', QUOTE, 500, 8)).toEqual({ granted: false, retryAt: 1008 });
    // The poller wakes first for the free slot and steps back for the earlier waiter.
    expect(poller.claim('quote', QUOTE, 1008, 8)).toEqual({ granted: false, retryAt: 1010 });
    expect(gateway.claim('quote', QUOTE, 1009, 8).granted).toBe(true);
    // Then the poller, waiting since 500, has the next slot before the gateway's next call.
    expect(gateway.claim('quote', QUOTE, 1100, 8).granted).toBe(false);
    expect(poller.claim('quote', QUOTE, 2017, 8).granted).toBe(true);
    // A waiter not heard from for 3 s (it died, or gave up) no longer holds anyone back.
    expect(poller.claim('quote', QUOTE, 9_000, 8).granted).toBe(true);
  });

  it('counts every window of a category and keeps the directory bounded', () => {
    const dir = tempDir('rate-slots-windows');
    const slots = new FileRateSlots(dir, 'acct', ['nonTrading']);
    const twoPerSecond = [{ windowMs: 1000, max: 2 }];
    let t = 0;
    let granted = 0;
    for (let i = 0; i < 200; i++, t += 100)
      if (slots.claim('nonTrading', twoPerSecond, t, 0).granted) granted++;
    // 20 s at 2 a second, the first window starting at 0.
    expect(granted).toBeGreaterThanOrEqual(38);
    expect(granted).toBeLessThanOrEqual(40);
    expect(readdirSync(join(dir, 'slots-acct-nonTrading')).length).toBeLessThanOrEqual(2 + 16 + 1);
  });

  it('refuses a client id that cannot name a file and a category it does not share', () => {
    expect(() => new FileRateSlots(tempDir('rate-slots-bad'), '../x', ['quote'])).toThrow(/SVC_CLIENT_ID/);
    const slots = new FileRateSlots(tempDir('rate-slots-lane'), 'acct', ['quote']);
    expect(() => slots.claim('order', DEFAULT_LIMITS.order, 0, 0)).toThrow(/not shared/);
  });
});

interface ChildResult {
  requests: number;
  throttled: number;
}

let server: RestServer | undefined;
beforeAll(async () => {
  server = await createRestServer({ model: new MarketModel({ seed: 3, instruments: 10 }) });
});
afterAll(async () => {
  await server?.close();
});

function runChild(shareDir: string, seconds: number): Promise<ChildResult> {
  if (server === undefined) throw new Error('no simulator');
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SIM_URL: server.baseUrl,
      TOKEN: ONE.webToken,
      CLIENT_ID: ONE.clientId,
      SHARE_DIR: shareDir,
      SECONDS: String(seconds),
      // Wide: this checks the sharing, not how small a margin a loaded machine allows.
      MARGIN_MS: '40',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || last === '') reject(new Error(`quote child exited with ${code}: ${out}`));
      else resolve(JSON.parse(last) as ChildResult);
    });
  });
}

describe('two processes of one account sharing the quote slots', () => {
  it('keep to 1 request a second together with no throttled answer; apart they are throttled', async () => {
    const seconds = 4;
    const shared = tempDir('rate-slots-shared');
    const together = await Promise.all([runChild(shared, seconds), runChild(shared, seconds)]);
    const asked = together.reduce((n, r) => n + r.requests, 0);
    expect(together.map((r) => r.throttled)).toEqual([0, 0]);
    // Both asked all along; together they were granted about one a second, and each got some.
    expect(together.every((r) => r.requests >= 1)).toBe(true);
    expect(asked).toBeGreaterThanOrEqual(seconds - 1);
    expect(asked).toBeLessThanOrEqual(seconds + 2);

    const apart = await Promise.all([
      runChild(tempDir('rate-slots-apart-a'), seconds),
      runChild(tempDir('rate-slots-apart-b'), seconds),
    ]);
    expect(apart.reduce((n, r) => n + r.throttled, 0)).toBeGreaterThan(0);
  }, 60_000);
});
