/**
 * The real Prometheus and Alertmanager binaries (Debian's `prometheus` and
 * `prometheus-alertmanager`, which scripts/setup.mjs installs for `npm test`) run for a test: on
 * loopback ports, with data in a scratch directory, under `setpriv --pdeathsig KILL` where it exists
 * (they die with the test process even when it is killed), stopped with SIGTERM then SIGKILL. And a
 * webhook receiver that records what Alertmanager sends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** The first of `names` found on PATH or in /usr/bin; throws naming the package to install. */
export function findBinary(names: readonly string[], debianPackage: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const name of names) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (dir && existsSync(path)) return path;
    }
  }
  throw new Error(
    `${names.join(' or ')} not found: install Debian's ${debianPackage} package (scripts/setup.mjs --browser does, as root)`,
  );
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Daemon {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The last few kilobytes it printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const OUTPUT_KEPT = 8_000;

/**
 * Starts `binary` with `args` (which must bind `port` on 127.0.0.1) and waits until `GET
 * /-/ready` answers 200, at most `timeoutMs`.
 */
export async function startDaemon(
  binary: string,
  args: readonly string[],
  port: number,
  timeoutMs = 30_000,
): Promise<Daemon> {
  const setpriv = existsSync('/usr/bin/setpriv');
  const child: ChildProcess = setpriv
    ? spawn('/usr/bin/setpriv', ['--pdeathsig', 'KILL', binary, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(binary, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(kill);
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, output: () => output, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`${binary} did not become ready within ${timeoutMs} ms:\n${output}`);
}

/** One POST Alertmanager made to the receiver (webhook payload version 4). */
export interface Notification {
  receivedAt: number;
  path: string;
  receiver: string;
  status: 'firing' | 'resolved';
  alerts: Array<{
    status: 'firing' | 'resolved';
    labels: Record<string, string>;
    annotations: Record<string, string>;
    startsAt: string;
    endsAt: string;
  }>;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  readonly notifications: Notification[];
  close(): Promise<void>;
}

/** Bodies larger than this are refused: a webhook payload of a few alerts is a few kilobytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/** An HTTP server on loopback that keeps every notification POSTed to it, in arrival order. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const notifications: Notification[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (req.method !== 'POST' || size > MAX_BODY_BYTES) {
        res.writeHead(400).end();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<
          Notification,
          'receivedAt' | 'path'
        >;
        notifications.push({ ...body, receivedAt: Date.now(), path: req.url ?? '' });
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    notifications,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
