/**
 * SIGINT/SIGTERM handling of a service's CLI: the first signal runs `stop` (deliver, flush, commit,
 * close) and exits 0 when it resolves, 1 when it fails; a stop that hangs is cut off after
 * `graceMs` (exit 1), so an orchestrator's grace period is never silently overrun. Later signals
 * are ignored while the stop runs.
 */
export interface StopSignalOptions {
  /** Longest a stop may take before the process exits anyway. Default 30 s. */
  graceMs?: number;
  /** Where progress is written. Default stderr. */
  write?: (text: string) => void;
}

export function onStopSignals(stop: () => Promise<void>, options: StopSignalOptions = {}): void {
  const graceMs = options.graceMs ?? 30_000;
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    write(`\nstopping (${signal})...\n`);
    setTimeout(() => process.exit(1), graceMs).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        write(`stop failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}
