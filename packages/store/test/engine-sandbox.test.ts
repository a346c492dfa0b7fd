/**
 * The embedded engine cannot reach the host, with no guard in front of it: statements sent straight
 * to the store's lanes (as the query API's guard would have to let them through) that name a file,
 * a URL, another server, S3, HDFS, a database of another kind, an executable, a dictionary, an
 * introspection function or Python are refused by the engine itself. A loopback listener counts
 * every request the engine sends (none may arrive), and a canary file next to the data directory
 * must never appear in an answer or an error.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store, type StoreLane } from '../src/index.js';

const CANARY = 'canary-7f3e9b1c-engine-sandbox';

async function textOf(lane: StoreLane, query: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await lane.stream(query, {}, 'TabSeparatedRaw')) {
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The error the engine answered with, or a failure of the test when it answered rows. */
async function refusalOf(lane: StoreLane, query: string): Promise<string> {
  try {
    const text = await textOf(lane, query);
    return `ANSWERED: ${text.slice(0, 200)}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('embedded engine sandbox: sources are refused by the engine itself', () => {
  let store: Store;
  let listener: Server;
  let hits = 0;
  let origin = '';
  const dataDir = tempDir('engine-sandbox');
  const canaryFile = join(dataDir, '..', `canary-${process.pid}.txt`);

  beforeAll(async () => {
    writeFileSync(canaryFile, `${CANARY}\n`);
    listener = createServer((_req, res) => {
      hits += 1;
      res.end(`${CANARY}\n`);
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    origin = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
    store = createStore({ dataDir });
    await store.internal.command(
      'CREATE TABLE IF NOT EXISTS default.sandbox_keys (id UInt64, v String) ENGINE = MergeTree ORDER BY id',
    );
    await store.internal.command(`INSERT INTO default.sandbox_keys VALUES (1, 'x')`);
    await store.internal.command(
      'CREATE DICTIONARY IF NOT EXISTS default.sandbox_dict (id UInt64, v String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE sandbox_keys DB default)) LAYOUT(FLAT()) LIFETIME(0)',
    );
  });
  afterAll(async () => {
    await store?.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  const attacks = (): Record<string, string> => ({
    file: `SELECT * FROM file('${canaryFile}', 'LineAsString')`,
    fileRelative: "SELECT * FROM file('../../etc/hostname', 'LineAsString')",
    url: `SELECT * FROM url('http://${origin}/x', 'LineAsString')`,
    urlInSubquery: `SELECT (SELECT any(line) FROM url('http://${origin}/y', 'LineAsString'))`,
    remote: `SELECT * FROM remote('${origin}', system.one)`,
    s3: `SELECT * FROM s3('http://${origin}/bucket/key.csv', 'CSV')`,
    hdfs: `SELECT * FROM hdfs('hdfs://${origin}/x', 'CSV')`,
    mysql: `SELECT * FROM mysql('${origin}', 'db', 'table', 'user', 'password')`,
    postgresql: `SELECT * FROM postgresql('${origin}', 'db', 'table', 'user', 'password')`,
    sqlite: `SELECT * FROM sqlite('${canaryFile}', 't')`,
    executable: "SELECT * FROM executable('cat /proc/self/environ', 'TSV', 'x String')",
    input: "SELECT * FROM input('x String')",
    dictGet: "SELECT dictGet('default.sandbox_dict', 'v', toUInt64(1))",
    introspection: 'SELECT addressToLine(1) SETTINGS allow_introspection_functions = 1',
    python: "SELECT * FROM python('x')",
  });

  for (const laneName of ['user', 'internal'] as const) {
    it(`refuses every source on the ${laneName} lane, sends nothing and echoes no canary`, async () => {
      const lane = store[laneName];
      const before = hits;
      for (const [name, sql] of Object.entries(attacks())) {
        const answer = await refusalOf(lane, sql);
        expect(answer, name).not.toMatch(/^ANSWERED/);
        expect(answer, name).not.toContain(CANARY);
      }
      expect(hits - before).toBe(0);
      // The lane still works after all those refusals, and reads its own tables.
      expect((await textOf(lane, 'SELECT v FROM default.sandbox_keys')).trim()).toBe('x');
    });
  }

  it('allows no backup path to a store opened without a backup directory (BACKUP comes with ALL)', async () => {
    const target = join(dataDir, '..', `backup-${process.pid}`);
    for (const lane of [store.user, store.internal]) {
      const [job] = await lane.rows<{ id: string }>(
        `BACKUP TABLE default.sandbox_keys TO File('${target}') ASYNC`,
      );
      let status = '';
      for (let i = 0; i < 100 && !/FAILED|CREATED/.test(status); i++) {
        await new Promise((r) => setTimeout(r, 50));
        [{ status } = { status: '' }] = await lane.rows<{ status: string }>(
          'SELECT status FROM system.backups WHERE id = {id:String}',
          { id: job?.id ?? '' },
        );
      }
      expect(status).toBe('BACKUP_FAILED');
    }
  });

  it('starts the engine with an empty files folder and half the machine’s memory', async () => {
    const settings = await textOf(
      store.internal,
      "SELECT name, value FROM system.server_settings WHERE name IN ('user_files_path', 'user_scripts_path') ORDER BY name",
    );
    const empty = join(dataDir, 'engine-config', 'empty');
    expect(settings.trim().split('\n')).toEqual([
      `user_files_path\t${empty}/`,
      `user_scripts_path\t${empty}/`,
    ]);
    const [memory] = await store.internal.rows<{ value: string }>(
      "SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage'",
    );
    expect(Number(memory?.value)).toBe(Math.floor(totalmem() * 0.5));
  });
});
