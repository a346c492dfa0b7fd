/**
 * bench:quotes' "trading gateway": a process of its own (as compose runs it) asking for a quote every
 * few seconds through a limiter that shares the account's quote slots with the poller's process
 * (FileRateSlots in the run's share directory, as the gateway's CLI does with SVC_TOKEN_SHARE_DIR).
 * The benchmark forks its own script with `--role gateway`; this reports its sends and answers to the
 * parent once the run's time is up.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { sharedQuoteLimiter } from '@feedpipe/broker-api';
import { FileRateSlots } from '@feedpipe/credentials';
import { createQuotePollerMetrics, quoteClient } from '@feedpipe/history-loader';
import { Registry } from 'prom-client';
import { type QuoteSend, recordQuoteSends } from './quote-sends.js';

export interface GatewayRun {
  baseUrl: string;
  clientId: string;
  token: string;
  shareDir: string;
  seconds: number;
  everySeconds: number;
  marginMs: number;
}

export interface GatewayReport {
  calls: number;
  failures: number;
  throttled: number;
  /** Each quote request, for the run's combined rate and lateness. */
  sends: QuoteSend[];
}

/** In the child: the gateway's quote calls until the run's time is up, then its report. */
export async function serveQuoteGateway(): Promise<void> {
  const run = await new Promise<GatewayRun>((resolve) => process.once('message', resolve));
  const limiter = sharedQuoteLimiter(run.marginMs, new FileRateSlots(run.shareDir, run.clientId, ['quote']));
  const report: GatewayReport = { calls: 0, failures: 0, throttled: 0, sends: [] };
  const countGc = recordQuoteSends(report.sends);
  const client = quoteClient(
    { baseUrl: run.baseUrl, clientId: run.clientId },
    run.token,
    limiter,
    createQuotePollerMetrics(new Registry()),
    () => {
      report.throttled += 1;
    },
  );
  // The gateway serves orders and account reads besides quotes, so its connection to the service
  // is open before its first quote call: a read of the non-trading category opens it here (else that
  // call, the first its connection carries, counts from its answer and delays the poller's next).
  await client.funds.fundLimit().catch(() => undefined);
  const started = Date.now();
  // Bounded by the run's length: one call per everySeconds.
  while (Date.now() - started + run.everySeconds * 1000 < run.seconds * 1000) {
    await new Promise((r) => setTimeout(r, run.everySeconds * 1000));
    try {
      await client.marketData.quote({ NSE_EQ: [2885, 11536] });
      report.calls += 1;
    } catch {
      report.failures += 1;
    }
  }
  countGc();
  process.send?.(report);
  process.disconnect();
}

/** In the benchmark: forks `script --role gateway` and starts it; resolves with its report. */
export function startQuoteGateway(
  script: string,
  run: GatewayRun,
): { child: ChildProcess; report: Promise<GatewayReport> } {
  const child = fork(script, ['--role', 'gateway'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const report = new Promise<GatewayReport>((resolve, reject) => {
    child.once('message', (m: GatewayReport) => resolve(m));
    child.once('exit', (code) =>
      reject(new Error(`the gateway process exited with ${code} before its report`)),
    );
  });
  child.send(run);
  return { child, report };
}
