/**
 * 404 for paths the API does not have, 405 with an `Allow` header for paths it has under other
 * methods. fastify's router only says "no route for this method and path", so every declared route
 * is recorded through the public onRoute hook (encapsulated plugins included) and the not-found
 * handler matches the path against those patterns. Like a 404, a 405 is answered after the auth
 * hook: without a key nothing about the API's paths is revealed.
 */
import type { FastifyInstance } from 'fastify';
import { errorBody } from './error-handler.js';
import { HttpError } from './http-error.js';

interface DeclaredPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** Methods listed in `Allow` in this order, so the header is stable. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Turns a fastify route pattern (`/a/:id/b`, `/a/:id(^\\d+)`, `/docs/*`) into an anchored RegExp. */
export function routePatternToRegExp(url: string): RegExp {
  let source = '';
  let i = 0;
  while (i < url.length) {
    const c = url[i] as string;
    if (c === ':' && url[i + 1] === ':') {
      source += ':';
      i += 2;
    } else if (c === ':') {
      i += 1;
      while (i < url.length && /[A-Za-z0-9_]/.test(url[i] as string)) i += 1;
      if (url[i] === '(') {
        // A parameter with its own regex: copy it up to the matching parenthesis.
        let depth = 0;
        const start = i;
        for (; i < url.length; i += 1) {
          if (url[i] === '\\') i += 1;
          else if (url[i] === '(') depth += 1;
          else if (url[i] === ')' && --depth === 0) break;
        }
        source += `(?:${url
          .slice(start + 1, i)
          .replace(/^\^/, '')
          .replace(/\$$/, '')})`;
        i += 1;
      } else source += '[^/]+';
    } else if (c === '*') {
      source += '.*';
      i += 1;
    } else {
      source += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  return new RegExp(`^${source}$`);
}

export function installMethodNotAllowed(app: FastifyInstance): void {
  const declared = new Map<string, DeclaredPath>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = declared.get(route.url);
    if (!entry) {
      entry = { pattern: routePatternToRegExp(route.url), methods: new Set() };
      declared.set(route.url, entry);
    }
    for (const method of methods) entry.methods.add(String(method).toUpperCase());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const entry of declared.values()) {
      if (entry.pattern.test(path)) for (const method of entry.methods) allowed.add(method);
    }
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort((a, b) => rank(a) - rank(b));
      reply
        .status(405)
        .header('allow', allow.join(', '))
        .send(
          errorBody(
            new HttpError(
              'METHOD_NOT_ALLOWED',
              `${request.method} is not allowed here; use ${allow.join(', ')}`,
            ),
          ),
        );
      return;
    }
    reply.status(404).send(errorBody(new HttpError('NOT_FOUND', `no route ${request.method} ${path}`)));
  });
}

function rank(method: string): number {
  const index = METHOD_ORDER.indexOf(method);
  return index === -1 ? METHOD_ORDER.length : index;
}
