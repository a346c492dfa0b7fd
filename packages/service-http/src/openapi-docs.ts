import './openapi-fields.js';

/**
 * The OpenAPI document (/docs/json) and the interactive docs (/docs) of a service. The docs are
 * public, like /healthz: they describe the routes, they hold no data, so every /docs route is
 * marked `open` for the auth hook. Register before the routes, so they are all in the document.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_KEY_HEADER, OPEN_SCOPE } from './auth/auth-hook.js';

export interface OpenApiDocsOptions {
  title: string;
  description: string;
  version?: string;
  /** Security schemes besides the x-api-key header (e.g. basic auth of a protocol endpoint). */
  securitySchemes?: Record<string, Record<string, unknown>>;
}

export async function registerOpenApiDocs(app: FastifyInstance, options: OpenApiDocsOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), scope: OPEN_SCOPE };
  });
  await app.register(swagger, {
    openapi: {
      info: { title: options.title, version: options.version ?? '1.0.0', description: options.description },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
          ...options.securitySchemes,
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
