/** A command of the workspace run to its end as a person runs it: exit code, stdout, stderr's tail. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CommandRun {
  code: number | null;
  stdout: string;
  /** The last 20,000 characters. */
  stderr: string;
}

/** `node <args>` in the repository root with `env` over this process's environment; killed after `timeoutMs`. */
export function runNode(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-20_000);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
