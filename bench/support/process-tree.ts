/**
 * CPU time and resident memory of a process tree from /proc, for benchmarks whose work runs in child processes too
 * (embedded chDB's engine process, a sink's workers): process.cpuUsage() and memoryUsage() see only
 * their own process.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux everywhere in practice). */
const USER_HZ = 100;

/** Bytes of a page, the unit of /proc's resident set size (4 KiB on the Linux machines this runs on). */
const PAGE_BYTES = 4096;

interface ProcessFigures {
  parent: number;
  /** CPU seconds (user and system) so far. */
  cpu: number;
  rssBytes: number;
}

/** Parent pid, CPU and resident memory of every process /proc shows. */
function processTable(): Map<number, ProcessFigures> {
  const table = new Map<number, ProcessFigures>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), {
        parent: Number(fields[1]),
        cpu: (Number(fields[11]) + Number(fields[12])) / USER_HZ,
        rssBytes: Number(fields[21]) * PAGE_BYTES,
      });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return table;
}

/** The processes of `root`'s tree, leaving out the subtrees of `except`. */
function tree(root: number, except: readonly number[]): ProcessFigures[] {
  const table = processTable();
  const found: ProcessFigures[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const figures = table.get(pid);
    if (figures !== undefined) found.push(figures);
    for (const [child, { parent }] of table) {
      if (parent === pid && !except.includes(child)) pending.push(child);
    }
  }
  return found;
}

/** CPU seconds so far of `root` and its descendants, leaving out the subtrees of `except`. */
export function treeCpuSeconds(root: number, except: readonly number[]): number {
  return tree(root, except).reduce((sum, p) => sum + p.cpu, 0);
}

/** Resident bytes now of `root` and its descendants. */
export function treeRssBytes(root: number): number {
  return tree(root, []).reduce((sum, p) => sum + p.rssBytes, 0);
}
