/** A test fixture run in a child process (embedded chDB binds one directory per process), its stdout collected. */
import { type ChildProcess, spawn } from 'node:child_process';

export function startChild(
  script: string,
  args: readonly string[],
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  return { child, output: () => output };
}
