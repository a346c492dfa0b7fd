/**
 * Operator output: on a terminal, one progress line redrawn in place (bar, rate, ETA, budget);
 * otherwise one JSON line per interval, for log collectors.
 */
import type { LoaderStatus } from './run-state.js';

export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

export function progressLine(s: LoaderStatus, width = 24): string {
  const fraction = s.unitsTotal === 0 ? 1 : s.unitsFinished / s.unitsTotal;
  const filled = Math.round(fraction * width);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  return (
    `[${bar}] ${s.unitsFinished}/${s.unitsTotal} units  ${s.rate.toFixed(2)} req/s  ` +
    `ETA ${formatDuration(s.etaSeconds)}  budget ${s.budgetLeft}  rows ${s.rowsWritten}  ` +
    `failed ${s.unitsFailed}  429 ${s.throttled}  ${s.state}`
  );
}

export interface ProgressReporter {
  stop(): void;
}

export function startProgress(
  status: () => LoaderStatus,
  out: NodeJS.WriteStream,
  intervalMs = out.isTTY ? 500 : 5_000,
): ProgressReporter {
  const tty = out.isTTY === true;
  const draw = (): void => {
    const s = status();
    if (tty) out.write(`\r${progressLine(s)}\x1b[K`);
    else
      out.write(
        `${JSON.stringify({
          event: 'progress',
          state: s.state,
          units: s.unitsFinished,
          total: s.unitsTotal,
          rate: Math.round(s.rate * 100) / 100,
          etaSeconds: s.etaSeconds,
          budgetLeft: s.budgetLeft,
          rows: s.rowsWritten,
          failed: s.unitsFailed,
          throttled: s.throttled,
        })}\n`,
      );
  };
  const timer = setInterval(draw, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      draw();
      if (tty) out.write('\n');
    },
  };
}
