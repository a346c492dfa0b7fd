/**
 * The embedded engine's process and its jail (embedded/engine-process/), tested from the engine's
 * side: on the internal lane, whose grants are the widest a statement of ours gets, the scalar
 * `file()` function (which no grant of the local engine covers) is pointed at what a query that
 * escaped the query API's guard would reach for in the pipeline's process. None of it is there.
 */

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, EMBEDDED_ENGINE_ALLOCATOR_ENV, type Store } from '../src/index.js';

const CANARY = `canary-${randomUUID()}`;

/** What the engine's `file(path)` returns, or the engine's error. */
async function engineRead(store: Store, path: string): Promise<string | Error> {
  try {
    const [row] = await store.internal.rows<{ text: string }>('SELECT file({path:String}) AS text', { path });
    return row?.text ?? '';
  } catch (error) {
    return error as Error;
  }
}

describe('the embedded engine in its jail', () => {
  let store: Store;
  let listener: Server;
  const secretFile = join(tempDir('engine-jail-host'), 'secret.txt');

  beforeAll(async () => {
    // What the pipeline's process holds: a secret in its environment and a file of the host.
    process.env.FEEDPIPE_JAIL_CANARY = CANARY;
    writeFileSync(secretFile, CANARY);
    store = createStore({ dataDir: tempDir('engine-jail'), engineIsolation: 'namespaces' });
    listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    delete process.env.FEEDPIPE_JAIL_CANARY;
    listener.close();
    await store.close();
  });

  it('answers queries and keeps its data (the control)', async () => {
    await store.internal.command('CREATE TABLE default.jail_rows (n UInt32) ENGINE = MergeTree ORDER BY n');
    await store.internal.insertCsv('default.jail_rows', ['n'], Buffer.from('1\n2\n3\n'));
    expect(await store.internal.rows('SELECT sum(n) AS total FROM default.jail_rows')).toEqual([
      { total: 6 },
    ]);
  });

  it('reads none of the pipeline process’s environment', async () => {
    const environ = await engineRead(store, '/proc/self/environ');
    expect(typeof environ).toBe('string');
    const names = (environ as string)
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.split('=')[0]);
    const expected = [
      ...Object.keys(EMBEDDED_ENGINE_ALLOCATOR_ENV),
      ...(process.env.TZ === undefined ? [] : ['TZ']),
    ];
    expect(names.sort()).toEqual(expected.sort());
    expect(environ).not.toContain(CANARY);
  });

  it('reads no file of the host outside its data directory', async () => {
    const rootManifest = fileURLToPath(new URL('../../../package.json', import.meta.url));
    for (const path of [secretFile, rootManifest, '/etc/hostname', '/etc/passwd', '/root']) {
      const answer = await engineRead(store, path);
      expect(answer, path).toBeInstanceOf(Error);
      expect(String(answer)).not.toContain(CANARY);
    }
    // The control: the same file is there for the pipeline's process.
    expect(readFileSync(secretFile, 'utf8')).toBe(CANARY);
  });

  it('cannot open its link to the store or its output (the requests and answers of others)', async () => {
    // 1 and 2 are its output to the store's log, 3 the link: socket pairs, which no open reaches.
    for (const fd of [1, 2, 3]) {
      const answer = await engineRead(store, `/proc/self/fd/${fd}`);
      expect(answer, `fd ${fd}`).toBeInstanceOf(Error);
    }
    // Its standard input is /dev/null.
    expect(await engineRead(store, '/proc/self/fd/0')).toBe('');
    // The store still talks to it: nothing was taken off the link.
    expect(await store.internal.rows('SELECT 7 AS n')).toEqual([{ n: 7 }]);
  });

  it('sees no process of the host: it is process 1 of its own namespace', async () => {
    const cmdline = await engineRead(store, '/proc/1/cmdline');
    expect(String(cmdline)).toContain('engine-host.ts');
    expect(String(await engineRead(store, '/proc/1/environ'))).not.toContain(CANARY);
  });

  it('has no network of the host: a loopback listener of the pipeline is not among its sockets', async () => {
    const port = (listener.address() as { port: number }).port;
    const local = `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
    // The control: the host's table lists the listener.
    expect(readFileSync('/proc/net/tcp', 'utf8')).toContain(local);
    const tcp = await engineRead(store, '/proc/net/tcp');
    expect(typeof tcp).toBe('string');
    expect(tcp).not.toContain(local);
    const interfaces = String(await engineRead(store, '/proc/net/dev'));
    expect(
      interfaces
        .split('\n')
        .filter((line) => line.includes(':'))
        .map((line) => line.split(':')[0]?.trim()),
    ).toEqual(['lo']);
  });
});

describe('the embedded engine as a plain child process (STORE_ENGINE_ISOLATION=process)', () => {
  it('gets none of the pipeline process’s environment', () => {
    // A process of its own: one embedded data directory per process.
    const script = `
      import { createStore } from ${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)};
      const store = createStore({ dataDir: ${JSON.stringify(tempDir('engine-process'))}, engineIsolation: 'process' });
      const [row] = await store.internal.rows("SELECT file('/proc/self/environ') AS text");
      process.stdout.write(JSON.stringify(row.text));
      await store.close();
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, FEEDPIPE_JAIL_CANARY: CANARY },
    });
    expect(child.status, child.stderr).toBe(0);
    const environ = JSON.parse(child.stdout) as string;
    expect(environ).not.toContain(CANARY);
    expect(
      environ
        .split('\0')
        .filter(Boolean)
        .every((entry) => /^(TZ|MALLOC_[A-Z_]+)=/.test(entry)),
    ).toBe(true);
  });
});
