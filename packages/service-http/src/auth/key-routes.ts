/**
 * Key management while a service runs (scope `admin`), over that service's own key store. Embedded
 * chDB binds its data directory to one process, so with `npm start` or a service on embedded
 * storage the CLI cannot reach the keys: these routes can. A new key's secret appears once, in the create answer; list answers carry
 * no secret, salt or hash. A revocation answers only once the key is refused by this process.
 */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../http-error.js';
import { routeDoc } from '../openapi/route-doc.js';
import type { ApiKeyStore } from './api-keys.js';
import { ADMIN_SCOPE } from './key-format.js';

const ADMIN = { scope: ADMIN_SCOPE } as const;

function keyInfoSchema(scopes: readonly string[]) {
  return {
    title: 'ApiKeyInfo',
    type: 'object',
    required: ['keyId', 'name', 'scopes', 'createdAt', 'revoked'],
    properties: {
      keyId: { type: 'string', description: '16 hex digits; the public part of the key' },
      name: { type: 'string' },
      scopes: { type: 'array', items: { type: 'string', enum: [...scopes] } },
      createdAt: { type: 'string', description: 'when the key was created' },
      revoked: { type: 'boolean' },
      lastUsedAt: {
        type: 'string',
        description: 'when this process last accepted the key (ISO 8601); absent if not since it started',
      },
    },
  } as const;
}

export function registerKeyRoutes<S extends string>(app: FastifyInstance, keys: ApiKeyStore<S>): void {
  const KEY_INFO = keyInfoSchema(keys.scopes);
  const SCOPES = keys.scopes;
  app.post<{ Body: { name: string; scopes: S[] } }>(
    '/v1/admin/keys',
    {
      config: ADMIN,
      schema: routeDoc({
        operationId: 'createApiKey',
        tags: ['admin'],
        summary: 'Create an API key (its secret is in this answer only)',
        body: {
          title: 'NewApiKey',
          type: 'object',
          additionalProperties: false,
          required: ['name', 'scopes'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200, description: 'who or what holds the key' },
            scopes: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', enum: [...SCOPES] },
              description: 'what the key may do; no scope implies another',
            },
          },
        },
        responses: {
          201: {
            ...KEY_INFO,
            title: 'CreatedApiKey',
            required: [...KEY_INFO.required, 'key'],
            properties: {
              ...KEY_INFO.properties,
              key: { type: 'string', description: 'the whole key, to send in x-api-key; shown only here' },
            },
          },
        },
      }),
    },
    async (request, reply) => {
      const created = await keys.create(request.body.name, request.body.scopes);
      return reply.status(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/v1/admin/keys',
    {
      config: ADMIN,
      // The response schema is the allow-list of what leaves: salt and hash cannot, whatever list() returns.
      schema: routeDoc({
        operationId: 'listApiKeys',
        tags: ['admin'],
        summary: 'List API keys (no secrets)',
        responses: {
          200: {
            title: 'ApiKeyList',
            type: 'object',
            required: ['keys'],
            properties: { keys: { type: 'array', items: KEY_INFO } },
          },
        },
      }),
    },
    async () => ({ keys: await keys.list() }),
  );

  app.delete<{ Params: { keyId: string } }>(
    '/v1/admin/keys/:keyId',
    {
      config: ADMIN,
      schema: routeDoc({
        operationId: 'revokeApiKey',
        tags: ['admin'],
        summary: 'Revoke an API key: refused from the next request on, its live streams end',
        params: {
          type: 'object',
          required: ['keyId'],
          properties: {
            keyId: {
              type: 'string',
              pattern: '^[0-9a-f]{16}$',
              description: 'the keyId of the key to revoke',
            },
          },
        },
        responses: {
          200: {
            title: 'RevokedApiKey',
            type: 'object',
            required: ['keyId', 'revoked'],
            properties: { keyId: { type: 'string' }, revoked: { type: 'boolean' } },
          },
        },
      }),
    },
    async (request) => {
      const { keyId } = request.params;
      if (!(await keys.revoke(keyId))) throw notFound(`no key ${keyId}`);
      return { keyId, revoked: true };
    },
  );
}
