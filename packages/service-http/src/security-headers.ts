/**
 * Headers every response of a service carries, set from the first hook so errors, 404s and routes
 * that write the raw response (streams) get them too:
 * - `X-Content-Type-Options: nosniff`: caller text comes back in some answers (CSV, text/plain
 *   errors of the ClickHouse protocol); without it a browser may sniff such an answer as HTML.
 * - on /docs (the interactive docs and their assets): a Content-Security-Policy that lets the page
 *   load only its own scripts, styles and images and call only this origin (the "try it out"
 *   requests), and `X-Frame-Options: DENY` with `frame-ancestors 'none'`, so no other site can
 *   frame the page (clickjacking).
 */
import type { FastifyInstance } from 'fastify';

/**
 * Swagger UI (@fastify/swagger-ui 6.1.3) loads its bundle, preset and initializer as files; its
 * bundle adds one inline style, allowed by its hash rather than by 'unsafe-inline'. A new version
 * with another inline style shows as a refusal in services/query-api/test/docs-browser.test.ts.
 */
const SWAGGER_UI_INLINE_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  `style-src 'self' ${SWAGGER_UI_INLINE_STYLE}`,
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const DOCS_PATH = /^\/docs(?:[/?#]|$)/;

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    // On the raw response: kept by fastify's own answers and by routes that write the raw one.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    if (DOCS_PATH.test(request.url)) {
      reply.raw.setHeader('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
      reply.raw.setHeader('x-frame-options', 'DENY');
    }
  });
}
