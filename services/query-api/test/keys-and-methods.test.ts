/**
 * Key management while the API runs (admin scope, revocation at once), 405 for undeclared methods,
 * and request logs that hold no key, whichever way the key was presented. No Kafka needed.
 */

import { Writable } from 'node:stream';
import { redactLogText } from '@feedpipe/service-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, LIVE_A, startHarness } from './helpers.js';

const lines: string[] = [];
let h: Harness;
let admin: Record<string, string>;

beforeAll(async () => {
  // A key cache of an hour: a revocation that relied on the cache expiring would be visible here.
  h = await startHarness(
    { keyCacheMs: 3_600_000, logLevel: 'info' },
    {
      logStream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    },
  );
  await h.api.start();
  admin = { 'x-api-key': (await h.api.keys.create('ops', ['admin'])).key };
});

afterAll(async () => {
  await h?.close();
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await fetch(`${h.api.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') && text.length > 0;
  return { status: response.status, headers: response.headers, body: json ? JSON.parse(text) : undefined };
}

describe('admin key routes', () => {
  it('creates a key that works at once, and lists keys without any secret, salt or hash', async () => {
    const created = await call('POST', '/v1/admin/keys', admin, { name: 'notebook', scopes: ['read'] });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(['read']);
    expect(created.body.key).toMatch(/^fpk_[0-9a-f]{16}_/);
    const used = await call('GET', `/v1/instruments/${LIVE_A}`, { 'x-api-key': created.body.key });
    expect(used.status).toBe(200);

    const listed = await call('GET', '/v1/admin/keys', admin);
    expect(listed.status).toBe(200);
    const row = listed.body.keys.find((k: { keyId: string }) => k.keyId === created.body.keyId);
    expect(row).toMatchObject({ name: 'notebook', scopes: ['read'], revoked: false });
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain((created.body.key as string).slice(21));
    expect(text).not.toMatch(/"(salt|hash|key)"/);
  });

  it('refuses a revoked key on its very next request, however long keys are cached', async () => {
    const created = await call('POST', '/v1/admin/keys', admin, { name: 'leaked', scopes: ['read'] });
    const leaked = { 'x-api-key': created.body.key };
    // Cached as valid first, so only an invalidation (not a cache miss) can refuse it.
    expect((await call('GET', `/v1/instruments/${LIVE_A}`, leaked)).status).toBe(200);
    const revoked = await call('DELETE', `/v1/admin/keys/${created.body.keyId}`, admin);
    expect(revoked).toMatchObject({ status: 200, body: { keyId: created.body.keyId, revoked: true } });
    const next = await call('GET', `/v1/instruments/${LIVE_A}`, leaked);
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('UNAUTHENTICATED');
    const listed = await call('GET', '/v1/admin/keys', admin);
    expect(listed.body.keys.find((k: { keyId: string }) => k.keyId === created.body.keyId).revoked).toBe(
      true,
    );
  });

  it('needs the admin scope, and names the field of a bad body', async () => {
    expect((await call('GET', '/v1/admin/keys', h.read)).status).toBe(403);
    expect((await call('GET', '/v1/admin/keys')).status).toBe(401);
    // admin implies nothing else.
    expect((await call('GET', `/v1/instruments/${LIVE_A}`, admin)).status).toBe(403);
    const bad = await call('POST', '/v1/admin/keys', admin, { name: 'x', scopes: ['root'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toContain('scopes');
    const unknown = await call('DELETE', '/v1/admin/keys/0123456789abcdef', admin);
    expect(unknown.status).toBe(404);
  });
});

describe('undeclared methods', () => {
  it('answer 405 with the Allow header on declared paths, 404 on unknown paths', async () => {
    const sql = await call('DELETE', '/v1/sql', h.read);
    expect(sql.status).toBe(405);
    expect(sql.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(sql.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(sql.headers.get('allow')).not.toContain('DELETE');

    const bars = await call('PUT', `/v1/instruments/${LIVE_A}/bars`, h.read);
    expect(bars.status).toBe(405);
    expect(bars.headers.get('allow')).toContain('GET');

    const keys = await call('PATCH', '/v1/admin/keys/0123456789abcdef', admin);
    expect(keys.status).toBe(405);
    expect(keys.headers.get('allow')).toBe('DELETE');

    const nowhere = await call('GET', '/v1/no-such-thing', h.read);
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get('allow')).toBeNull();
  });
});

describe('request logs', () => {
  it('never hold an API key, whether sent in a header, as a bearer token or in the query', async () => {
    const key = h.read['x-api-key'] as string;
    const secret = key.slice('fpk_0123456789abcdef_'.length);
    lines.length = 0;
    await call('GET', `/v1/instruments/${LIVE_A}`, h.read);
    await call('GET', `/v1/instruments/${LIVE_A}`, { authorization: `Bearer ${key}` });
    await call('GET', `/v1/instruments/${LIVE_A}?key=${key}`);
    await call('GET', `/status?key=${key}&instrument=${LIVE_A}`);
    await call('GET', `/v1/no-such-thing?key=${key}`, h.read);
    await call('POST', `/v1/no-such-thing/${key}`, { cookie: `session=${key}` });
    await call('DELETE', `/v1/sql?token=${key}`, h.read);

    const log = lines.join('');
    // The requests were logged (so the assertion below is about real lines), by route pattern.
    expect(log).toContain('"route":"/v1/instruments/:securityId"');
    expect(log).toContain('"route":"/status"');
    expect(log).toContain('request completed');
    expect(log).not.toContain(secret);
    expect(log).not.toContain('?key=');
    expect(log).not.toContain('instrument=');
  });

  it('scrubs query strings, keys and known secrets from any text', () => {
    const key = `fpk_0123456789abcdef_${'A'.repeat(43)}`;
    const text = `Reply was already sent in the "/v1/x?key=${key}&a=1" route; token s3cr3t-token-value, ${encodeURIComponent('s3cr3t-token-value')}`;
    const out = redactLogText(text, ['s3cr3t-token-value']);
    expect(out).not.toContain('A'.repeat(43));
    expect(out).not.toContain('s3cr3t-token-value');
    expect(out).not.toContain('a=1');
    expect(out).toContain('/v1/x?[redacted]');
    expect(redactLogText(`bare ${key} here`)).toBe('bare fpk_0123456789abcdef_[redacted] here');
  });
});
