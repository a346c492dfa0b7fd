/**
 * Server mode logins, without a ClickHouse server: a loopback HTTP listener records what
 * @clickhouse/client sends and answers as ClickHouse's HTTP interface would (rows for a
 * JSONEachRow query, an empty 200 for an insert). Callers' queries (the `user` lane) must log in as
 * the reader account when one is given; the pipeline's own work (the `internal` lane, inserts) as the URL's user.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStore, StoreError, type StoreLane } from '../src/index.js';

interface Recorded {
  user: string;
  password: string;
  query: string;
}

const MAIN_PASSWORD = 'main-pw-7c1e9a';
const READER_PASSWORD = 'reader-pw-41b0d2';

let server: Server;
let base = '';
let recorded: Recorded[] = [];

/** Basic auth as the client sends it; the user name ends at the first colon. */
function login(request: IncomingMessage): { user: string; password: string } {
  const header = request.headers.authorization ?? '';
  const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      // A query goes in the body, or in ?query= with the data (an insert's rows) in the body.
      const query = url.searchParams.get('query') ?? Buffer.concat(chunks).toString('utf8');
      recorded.push({ ...login(request), query });
      const isSelect = /^\s*SELECT/i.test(query);
      response.writeHead(200, {
        'Content-Type': isSelect ? 'application/x-ndjson; charset=UTF-8' : 'text/plain; charset=UTF-8',
        'X-ClickHouse-Query-Id': `q${recorded.length}`,
        'X-ClickHouse-Format': isSelect ? 'JSONEachRow' : 'TabSeparated',
        'X-ClickHouse-Summary': '{"read_rows":"1","read_bytes":"1","written_rows":"0","written_bytes":"0"}',
      });
      response.end(isSelect ? '{"answer":1}\n' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
});

function select(lane: StoreLane, tag: string): Promise<unknown[]> {
  return lane.rows(`SELECT 1 AS answer /* ${tag} */`);
}

describe('server mode logins', () => {
  it('sends callers’ queries as the reader account and the pipeline’s work as the URL’s user', async () => {
    const store = createStore({
      url: `http://feedpipe:${MAIN_PASSWORD}@${base}`,
      userAccount: { username: 'feedpipe_sql', password: READER_PASSWORD },
    });
    try {
      expect(await select(store.user, 'caller')).toEqual([{ answer: 1 }]);
      expect(await select(store.internal, 'pipeline')).toEqual([{ answer: 1 }]);
      await store.internal.insertCsv('market.ticks', ['security_id'], Buffer.from('1\n'));
    } finally {
      await store.close();
    }
    const by = (tag: string) => recorded.filter((r) => r.query.includes(tag));
    expect(by('caller').map(({ user, password }) => ({ user, password }))).toEqual([
      { user: 'feedpipe_sql', password: READER_PASSWORD },
    ]);
    expect(by('pipeline').map(({ user, password }) => ({ user, password }))).toEqual([
      { user: 'feedpipe', password: MAIN_PASSWORD },
    ]);
    expect(by('INSERT INTO market.ticks').map(({ user, password }) => ({ user, password }))).toEqual([
      { user: 'feedpipe', password: MAIN_PASSWORD },
    ]);
    expect(recorded).toHaveLength(3);
    // The reader's profile pins readonly = 2: the API must ask for that level, not 1.
    expect(store.userReadonly).toBe(2);
    expect(store.location).not.toContain(MAIN_PASSWORD);
  });

  it('without a reader account, both lanes log in as the URL’s user (as before)', async () => {
    const store = createStore({ url: `http://feedpipe:${MAIN_PASSWORD}@${base}` });
    try {
      await select(store.user, 'caller');
      await select(store.internal, 'pipeline');
    } finally {
      await store.close();
    }
    expect(new Set(recorded.map((r) => `${r.user}:${r.password}`))).toEqual(
      new Set([`feedpipe:${MAIN_PASSWORD}`]),
    );
    expect(recorded).toHaveLength(2);
    expect(store.userReadonly).toBe(1);
  });
});

describe('userAccount validation', () => {
  const url = `http://feedpipe:${MAIN_PASSWORD}@127.0.0.1:1`;
  const refusal = (config: Parameters<typeof createStore>[0]): StoreError => {
    try {
      createStore(config);
    } catch (error) {
      expect(error).toBeInstanceOf(StoreError);
      return error as StoreError;
    }
    throw new Error('createStore accepted the configuration');
  };

  it('refuses a reader without a password, naming the key', () => {
    for (const password of [undefined, '']) {
      const error = refusal({
        url,
        userAccount: { username: 'feedpipe_sql', password } as unknown as {
          username: string;
          password: string;
        },
      });
      expect(error.code).toBe('STORE_CONFIG_INVALID');
      expect(error.message).toContain('userAccount: "password"');
    }
  });

  it('refuses a user name the HTTP login cannot carry, without echoing the password', () => {
    for (const username of ['', 'reader:x', 'a b']) {
      const error = refusal({ url, userAccount: { username, password: READER_PASSWORD } });
      expect(error.message).toContain('userAccount: "username" must be a ClickHouse user name');
      expect(error.message).not.toContain(READER_PASSWORD);
    }
  });

  it('refuses unknown fields and a reader without a server', () => {
    const extra = refusal({
      url,
      userAccount: { username: 'feedpipe_sql', password: READER_PASSWORD, readonly: 0 } as unknown as {
        username: string;
        password: string;
      },
    });
    expect(extra.message).toContain('unknown option "readonly" (allowed: username, password)');
    const embedded = refusal({ userAccount: { username: 'feedpipe_sql', password: READER_PASSWORD } });
    expect(embedded.message).toContain('"userAccount" needs "url"');
    expect(embedded.message).not.toContain(READER_PASSWORD);
  });
});
