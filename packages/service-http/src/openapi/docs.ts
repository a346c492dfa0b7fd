import './fields.js';

/**
 * The OpenAPI 3.1 document (/docs/json) and the interactive docs (/docs) of a service. The docs
 * are public, like /healthz: they describe the routes, they hold no data, so every /docs route is
 * marked `open` for the auth hook. Register before the routes, so they are all in the document.
 * Schemas added with `app.addSchema` (ErrorBody) become components named by their `$id`, so a
 * generated client names its classes after them. Routes left out of the document (`hide`) are
 * recorded, so a test can hold them to a known list.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_KEY_HEADER, OPEN_SCOPE } from '../auth/auth-hook.js';

export interface OpenApiDocsOptions {
  title: string;
  description: string;
  version?: string;
  /** Security schemes besides the x-api-key header (e.g. basic auth of a protocol endpoint). */
  securitySchemes?: Record<string, Record<string, unknown>>;
}

/** A route the document leaves out, as `METHOD url`. */
export type HiddenRoute = string;

const hidden = new WeakMap<FastifyInstance, HiddenRoute[]>();

/** Routes of `app` that the document leaves out (`schema.hide`), HEAD routes aside. */
export function hiddenRoutes(app: FastifyInstance): readonly HiddenRoute[] {
  return hidden.get(app) ?? [];
}

export async function registerOpenApiDocs(app: FastifyInstance, options: OpenApiDocsOptions): Promise<void> {
  const left: HiddenRoute[] = [];
  hidden.set(app, left);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), scope: OPEN_SCOPE };
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    if ((route.schema as { hide?: boolean } | undefined)?.hide === true) {
      for (const method of methods) left.push(`${method} ${route.url}`);
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: options.version ?? '1.0.0', description: options.description },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
          ...options.securitySchemes,
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
