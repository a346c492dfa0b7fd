/**
 * Scheduling priorities of a benchmark's processes on a shared machine. Linux keeps a nice value
 * per thread, so a process is reniced thread by thread (/proc/<pid>/task); elsewhere only the
 * thread the pid names is. Lowering a nice value (a higher priority) needs privilege (root or
 * CAP_SYS_NICE): where it is refused, the caller is told and the process keeps its priority.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export interface PriorityOutcome {
  /** The nice value the process's main thread has now. */
  nice: number;
  /** Why the asked value was not set; absent when it was. */
  refused?: string;
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number).filter(Number.isInteger);
  } catch {
    return [pid];
  }
}

/** Sets every thread of `pid` to `nice` where permitted. */
export function renice(pid: number, nice: number): PriorityOutcome {
  try {
    for (const tid of threadsOf(pid)) setPriority(tid, nice);
    return { nice: getPriority(pid) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { nice: getPriority(pid), refused: code };
  }
}

/**
 * Runs `start` with this process's nice raised by `by` (what it starts inherits the value), then
 * puts this process back where it was, where permitted (going back is a raise of priority).
 */
export async function startedNicer<T>(
  by: number,
  start: () => Promise<T>,
): Promise<{ value: T; nice: number }> {
  const own = getPriority();
  setPriority(Math.min(19, own + by));
  try {
    return { value: await start(), nice: getPriority() };
  } finally {
    renice(process.pid, own);
  }
}
