/**
 * The short form of `npm run bench:soak -- --minutes 30 --token-lifetime 120`: the same run (the
 * whole pipeline, simulator -> ingestor -> Kafka -> sink -> ClickHouse, the simulator's tokens
 * expiring, the TOTP source renewing) for 75 s at a lower rate with 44 s tokens, so at least two
 * renewals happen (one every 33 s: three quarters into a token's life, and at least one TOTP step
 * apart). The bench judges the run and the test holds it to the same bar: every renewal followed
 * by a reconnection of all 5 connections, each one's gap in the ledger of gaps (as the sink stored
 * it) and under 2 s, nothing fatal, 0 lost and 0 duplicated against what the simulator sent.
 */
import { spawn } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';

const brokers = inject('kafkaBrokers');

interface SoakResult {
  ok: boolean;
  sent: number;
  sent_packets: number;
  stored: number;
  lost: number;
  duplicates: number;
  token_renewals: number;
  reconnects: number;
  max_gap_ms: number;
  fatal: string | null;
  repeated_trades_dropped: number;
  rss_growth_mb: number;
  renewal: {
    fully_reconnected: number;
    max_renewal_gap_ms: number;
    gaps_by_cause: Record<string, number>;
    ledger: { written: number; stored: number; dropped: number };
    checks: Record<string, boolean>;
  };
}

/** Runs bench/soak.ts on the test run's broker; resolves with its last stdout line, parsed. */
function runSoak(args: string[]): Promise<{ result: SoakResult; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.ts', ...args], {
      cwd: process.cwd(),
      env: { ...process.env, KAFKA_BROKERS: brokers.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 480_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve({ result: JSON.parse(last) as SoakResult, stderr });
      } catch {
        reject(new Error(`bench:soak printed no JSON result; stderr:\n${stderr.slice(-4_000)}`));
      }
    });
  });
}

describe('soak with renewing tokens (short form of bench:soak)', () => {
  it('renews at least twice; every renewal reconnects all 5 connections with a gap under 2 s in the ledger; nothing lost or duplicated', async () => {
    const { result, stderr } = await runSoak([
      '--minutes',
      '1.25',
      '--token-lifetime',
      '44',
      '--rate',
      '5000',
      '--instruments',
      '2500',
      '--sample-seconds',
      '5',
    ]);
    const why = `${JSON.stringify({ ...result, samples: undefined })}\n${stderr.slice(-3_000)}`;
    expect(result.token_renewals, why).toBeGreaterThanOrEqual(2);
    expect(result.fatal, why).toBeNull();
    expect(result.renewal.fully_reconnected, why).toBe(result.token_renewals);
    expect(result.reconnects, why).toBeGreaterThanOrEqual(5 * result.token_renewals);
    expect(result.renewal.max_renewal_gap_ms, why).toBeLessThan(2_000);
    expect(result.renewal.gaps_by_cause.token_renewal, why).toBeGreaterThanOrEqual(5 * result.token_renewals);
    expect(result.renewal.ledger.dropped, why).toBe(0);
    expect(result.renewal.ledger.stored, why).toBe(result.renewal.ledger.written);
    expect(result.sent, why).toBeGreaterThan(0);
    expect(result.lost, why).toBe(0);
    expect(result.duplicates, why).toBe(0);
    // Each renewal's resubscription repeated the last trades; they were not stored again.
    expect(result.sent_packets, why).toBeGreaterThan(result.sent);
    expect(result.repeated_trades_dropped, why).toBeGreaterThan(0);
    expect(Object.values(result.renewal.checks).every(Boolean), why).toBe(true);
    expect(result.ok, why).toBe(true);
  }, 600_000);
});
