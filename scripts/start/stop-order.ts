/**
 * The stop order of `npm start`: parts stop in the reverse of the order they started (the broker
 * last of all), each within a bounded time, and the whole stop within 9 s even if a part hangs.
 */

const stopTasks: Array<{ name: string; stop: () => Promise<void> }> = [];
/** Per part; the whole stop stays under 10 s even if one part hangs. */
const STOP_TIMEOUT_MS = 2_500;
let stopping = false;

/** Registers a started part; it stops before every part registered earlier. */
export function onExit(name: string, stop: () => Promise<void>): void {
  stopTasks.push({ name, stop });
}

/** True once a stop has begun: a start still under way goes no further. */
export function isStopping(): boolean {
  return stopping;
}

/** One part's stop, raced against its time limit: 'stopped', 'timeout' or why it failed. */
async function stopOne(task: { stop: () => Promise<void> }): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
  });
  const outcome = await Promise.race([task.stop().then(() => 'stopped' as const), timedOut]).catch(
    (error: unknown) => `failed: ${(error as Error).message}`,
  );
  clearTimeout(timer);
  return outcome;
}

export async function stopAll(reason: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\nstopping (${reason})...\n`);
  const hardStop = setTimeout(() => {
    process.stderr.write('stop took longer than 9 s; exiting\n');
    process.exit(1);
  }, 9_000);
  hardStop.unref();
  for (const task of stopTasks.reverse()) {
    const started = Date.now();
    // Each part gets a bounded time, so one that hangs cannot keep the others (the broker last of
    // all) from stopping in order.
    const outcome = await stopOne(task);
    process.stderr.write(
      outcome === 'stopped'
        ? `  stopped ${task.name} in ${Date.now() - started} ms\n`
        : outcome === 'timeout'
          ? `  ${task.name} did not stop within ${STOP_TIMEOUT_MS} ms; going on\n`
          : `  stop ${task.name}: ${outcome}\n`,
    );
  }
  process.stderr.write('stopped.\n');
  process.exit(code);
}
