/**
 * The postback endpoint: `POST /postbacks/orders/<secret>` (the URL to register with the service)
 * or `POST /postbacks/orders` with the secret in the `x-postback-secret` header. The source and
 * the secret are checked before the body is read (403 / 401); the body must be JSON (415, 400)
 * and match the schema (400); then the event is handed to the pipeline and the answer is 202
 * (accepted), 200 (a duplicate, stored once already) or 503 (queue full: retry later). Nothing
 * refused ever reaches Kafka or ClickHouse.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { POSTBACK_BODY_SCHEMA } from './body-schema.js';
import { PostbackError } from './errors.js';
import { installErrorHandler } from './http-errors.js';
import type { ResolvedReceiverOptions } from './options.js';
import { toOrderEvent } from './order-event.js';
import type { OrderEventPipeline } from './pipeline.js';
import { SECRET_HEADER, secretMatches, sourceAllowed } from './source-guard.js';

export interface RefusalCounters {
  secret: number;
  source: number;
  malformed: number;
  busy: number;
}

/** Route config understood by the API's auth hook: the service posts without an API key. */
const OPEN_ROUTE = { scope: 'open' } as Record<string, unknown>;

function presentedSecret(request: FastifyRequest): string | undefined {
  const params = request.params as { secret?: string } | undefined;
  if (params?.secret) return params.secret;
  const h = request.headers[SECRET_HEADER];
  return Array.isArray(h) ? h[0] : h;
}

export function registerReceiverRoutes(
  app: FastifyInstance,
  options: ResolvedReceiverOptions,
  pipeline: OrderEventPipeline,
  refusals: RefusalCounters,
): void {
  void app.register(async (ctx) => {
    installErrorHandler(ctx);
    ctx.removeAllContentTypeParsers();
    ctx.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: options.bodyLimit },
      (_request, body, done) => {
        try {
          done(null, JSON.parse(String(body)));
        } catch {
          refusals.malformed += 1;
          done(new PostbackError('POSTBACK_MALFORMED', 'body is not valid JSON', { status: 400 }), undefined);
        }
      },
    );
    ctx.addContentTypeParser('*', (_request, _payload, done) => {
      refusals.malformed += 1;
      done(
        new PostbackError('POSTBACK_UNSUPPORTED_MEDIA', 'send the body as application/json', { status: 415 }),
      );
    });
    ctx.addHook('onRequest', async (request) => {
      if (options.allowlist && !sourceAllowed(options.allowlist, request.ip)) {
        refusals.source += 1;
        throw new PostbackError('POSTBACK_SOURCE_REFUSED', `source ${request.ip} is not allowed to post`, {
          status: 403,
        });
      }
      if (!secretMatches(options.secret, presentedSecret(request))) {
        refusals.secret += 1;
        throw new PostbackError('POSTBACK_UNAUTHENTICATED', 'missing or wrong postback secret', {
          status: 401,
        });
      }
    });
    ctx.addHook('preHandler', async (request) => {
      // Schema failures reach the handler with attachValidation; count them, then refuse.
      if (request.validationError) {
        refusals.malformed += 1;
        throw request.validationError;
      }
    });
    const route = {
      config: OPEN_ROUTE,
      bodyLimit: options.bodyLimit,
      attachValidation: true,
      schema: { body: POSTBACK_BODY_SCHEMA },
    };
    const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
      const event = toOrderEvent(request.body as Record<string, unknown>, 'postback', Date.now());
      const result = pipeline.accept(event);
      if (result === 'full') {
        refusals.busy += 1;
        throw new PostbackError('POSTBACK_BUSY', 'receiver queue full; retry later', {
          status: 503,
          retryable: true,
        });
      }
      return reply.code(result === 'accepted' ? 202 : 200).send({ status: result, eventKey: event.eventKey });
    };
    ctx.post('/postbacks/orders', route, handler);
    ctx.post('/postbacks/orders/:secret', route, handler);
  });
}
