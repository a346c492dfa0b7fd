/**
 * What a service passes in: its key table and scopes (keys of one table are nothing to a store over
 * another), its metric prefix, and its own error subclass, which the shared handler still knows.
 * Embedded chDB; no Kafka.
 */
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiKeyStore,
  createHttpMetrics,
  errorBody,
  HttpError,
  isHttpError,
  toHttpError,
} from '../src/index.js';

let store: Store;
beforeAll(async () => {
  store = createStore({ dataDir: tempDir('service-http') });
  await runMigrations(store.internal);
});
afterAll(async () => store?.close());

describe('ApiKeyStore over a table and scopes of the service', () => {
  it('refuses scopes outside its list, and keys of another table', async () => {
    const api = new ApiKeyStore(store.internal, {
      table: 'market.api_keys',
      scopes: ['read', 'admin'],
      cacheMs: 0,
    });
    const gateway = new ApiKeyStore(store.internal, {
      table: 'market.gateway_api_keys',
      scopes: ['trade', 'admin'],
      cacheMs: 0,
    });
    await expect(api.create('x', ['trade' as 'read'])).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      field: 'scopes',
    });
    const reader = await api.create('notebook', ['read']);
    const trader = await gateway.create('desk', ['trade']);
    expect(await api.verify(reader.key)).toMatchObject({ name: 'notebook', scopes: ['read'] });
    expect(await gateway.verify(reader.key)).toBeUndefined();
    expect(await api.verify(trader.key)).toBeUndefined();
    expect((await gateway.list()).map((k) => k.name)).toEqual(['desk']);
    expect(await gateway.revoke(trader.keyId)).toBe(true);
    expect(await gateway.verify(trader.key)).toBeUndefined();
  });

  it('takes only database.table as its table name', () => {
    expect(
      () =>
        new ApiKeyStore(store.internal, { table: 'market.keys; DROP TABLE x', scopes: ['read'], cacheMs: 0 }),
    ).toThrow(/database\.table/);
  });
});

describe('metrics and errors', () => {
  it('names every metric with the service prefix and refuses a malformed one', async () => {
    const metrics = createHttpMetrics({ prefix: 'some_service_', processMetrics: true });
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining(['some_service_http_requests_total', 'some_service_errors_total']),
    );
    // The process metrics carry the one name every process gives them (service-kit's prefix).
    expect(names).toContain('feedpipe_process_resident_memory_bytes');
    expect(names.filter((n) => !n.startsWith('some_service_') && !n.startsWith('feedpipe_'))).toEqual([]);
    expect(() => createHttpMetrics({ prefix: 'Bad-Prefix' })).toThrow(/prefix/);
  });

  it("answers a service's subclass with its own code and status", () => {
    class ServiceError extends HttpError<'BAD_REQUEST' | 'SPECIAL'> {
      override readonly name = 'ServiceError';
    }
    const error = new ServiceError('SPECIAL', 'special case', { status: 418, field: 'x' });
    expect(isHttpError(error)).toBe(true);
    expect(toHttpError(error)).toBe(error);
    expect(errorBody(toHttpError(error))).toEqual({
      error: { code: 'SPECIAL', message: 'special case', field: 'x' },
    });
    expect(toHttpError(new Error('boom'))).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(toHttpError(new Error('mapped'), () => new HttpError('NOT_FOUND', 'gone'))).toMatchObject({
      status: 404,
    });
  });
});
