/**
 * The soak's verdict on token renewals, from the ledger of gaps as the sink stored it
 * (market.feed_gaps): for every renewal, each connection must have a gap that began at the renewal
 * (the connection dropped for the new token, or was refused the old one) and ended (it was live
 * again: reconnected and re-subscribed), caused by `token_renewal` and shorter than `maxGapMs`.
 * The ledger is the proof of the reconnection too: a connection's gap ends only when its socket
 * with the new token is open and reading.
 */
import type { PipelineHarness, StoredGap } from './pipeline-harness.js';

export interface RenewalJudgement {
  ok: boolean;
  /** The longest gap of any cause in the ledger, ms (0 without gaps). */
  maxGapMs: number;
  report: RenewalReport;
}

export interface RenewalReport {
  /** Renewals after which every connection has a closed token_renewal gap in the ledger. */
  fully_reconnected: number;
  /** Per renewal: seconds since the first, longest gap of its connections (ms), its intervals. */
  renewals: Array<{ at_s: number; max_gap_ms: number; connections: number; intervals: number }>;
  /** The longest token_renewal gap of one connection at one renewal (first start to last end), ms. */
  max_renewal_gap_ms: number;
  /** Intervals in the ledger by cause. */
  gaps_by_cause: Record<string, number>;
  /** token_renewal intervals not near any renewal (a renewal the bench did not see). */
  unexplained_renewal_gaps: number;
  /** Rows the ingestor wrote to the ledger, rows the sink stored, records it dropped at its bound. */
  ledger: { written: number; stored: number; dropped: number };
  fatal: string | null;
  checks: Record<string, boolean>;
}

export interface JudgeOptions {
  pipeline: PipelineHarness;
  /** Epoch ms of each new token (the credentials' onChange). */
  renewedAt: readonly number[];
  connections: number;
  /** Default 2 000 ms. */
  maxGapMs?: number;
  log: (message: string) => void;
}

/** A renewal's gaps begin within this window around it (an 807 may come a moment before). */
const BEFORE_MS = 2_000;
const AFTER_MS = 10_000;

/** Waits (bounded) until the sink stored every gap row the ingestor wrote. */
async function storedLedger(pipeline: PipelineHarness, log: JudgeOptions['log']): Promise<StoredGap[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { written, pending } = pipeline.ingestor.stats().gaps;
    const gaps = await pipeline.storedGaps();
    const stored = gaps.reduce((sum, g) => sum + g.rows, 0);
    if ((pending === 0 && stored >= written) || Date.now() > deadline) {
      if (stored < written) log(`ledger: ${stored} of ${written} gap rows stored at the deadline`);
      return gaps;
    }
    await pipeline.flushSink();
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export async function judgeRenewals(options: JudgeOptions): Promise<RenewalJudgement> {
  const { pipeline, renewedAt, connections } = options;
  const limit = options.maxGapMs ?? 2_000;
  const gaps = await storedLedger(pipeline, options.log);
  const byCause: Record<string, number> = {};
  for (const g of gaps) byCause[g.cause] = (byCause[g.cause] ?? 0) + 1;
  const renewalGaps = gaps.filter((g) => g.cause === 'token_renewal');
  const explained = new Set<StoredGap>();
  const renewals: RenewalReport['renewals'] = [];
  let fullyReconnected = 0;
  for (const at of renewedAt) {
    const near = renewalGaps.filter((g) => g.startedAt >= at - BEFORE_MS && g.startedAt <= at + AFTER_MS);
    for (const g of near) explained.add(g);
    let longest = 0;
    const covered = new Set<number>();
    for (let c = 0; c < connections; c++) {
      const own = near.filter((g) => g.connection === c);
      if (own.length === 0) continue;
      covered.add(c);
      const span = Math.max(...own.map((g) => g.endedAt)) - Math.min(...own.map((g) => g.startedAt));
      longest = Math.max(longest, span);
    }
    if (covered.size === connections) fullyReconnected++;
    renewals.push({
      at_s: Math.round((at - (renewedAt[0] ?? at)) / 100) / 10,
      max_gap_ms: Math.round(longest),
      connections: covered.size,
      intervals: near.length,
    });
  }
  const maxRenewalGapMs = Math.max(0, ...renewals.map((r) => r.max_gap_ms));
  const stats = pipeline.ingestor.stats();
  const ledger = {
    written: stats.gaps.written,
    stored: gaps.reduce((sum, g) => sum + g.rows, 0),
    dropped: stats.gaps.dropped,
  };
  const checks = {
    renewed: renewedAt.length > 0,
    every_renewal_reconnected_all: fullyReconnected === renewedAt.length,
    every_renewal_gap_under_limit: maxRenewalGapMs < limit,
    no_unexplained_renewal_gaps: renewalGaps.length === explained.size,
    ledger_complete: ledger.dropped === 0 && ledger.stored >= ledger.written,
    no_fatal: stats.fatal === undefined,
  };
  return {
    ok: Object.values(checks).every(Boolean),
    maxGapMs: Math.round(Math.max(0, ...gaps.map((g) => g.endedAt - g.startedAt))),
    report: {
      fully_reconnected: fullyReconnected,
      renewals,
      max_renewal_gap_ms: maxRenewalGapMs,
      gaps_by_cause: byCause,
      unexplained_renewal_gaps: renewalGaps.length - explained.size,
      ledger,
      fatal: stats.fatal ?? null,
      checks,
    },
  };
}
