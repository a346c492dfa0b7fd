/**
 * The postback endpoint. `POST /postbacks/orders` with the secret in a header, preferably
 * `x-postback-signature: sha256=<hex HMAC-SHA256 of the body under the secret>` or else
 * `x-postback-secret: <secret>` (both for a relay you run in front of the receiver); or
 * `POST /postbacks/orders/<secret>`, the form to register with the service, whose console takes a
 * URL and nothing else (`allowSecretInPath`, default on).
 *
 * Order of checks: source allowlist (403) and a secret in the path or header (401) before the
 * body is read; then the body: JSON only (415), at most `bodyLimit` bytes (413), nested at most
 * `maxBodyDepth` levels (400, measured on the text before parsing), valid JSON (400), the
 * signature if that is how the sender authenticates (401), the schema (400). Then the update is
 * written to the write-ahead log and the answer is 202 only once it is synced there; 200 for a
 * duplicate of a stored (or durably logged) update; 503 with Retry-After when the log is full or
 * the disk fails. Nothing refused ever reaches the log, Kafka or ClickHouse.
 *
 * The routes log their requests with a serializer that shows neither the path's secret nor a
 * query string, whatever the app's own request logging does.
 */
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonDepth } from './body-guard.js';
import { POSTBACK_BODY_SCHEMA } from './body-schema.js';
import { PostbackError } from './errors.js';
import { installErrorHandler } from './http-errors.js';
import type { ResolvedReceiverOptions } from './options.js';
import { toOrderEvent } from './order-event.js';
import type { OrderEventPipeline } from './pipeline.js';
import {
  SECRET_HEADER,
  SIGNATURE_HEADER,
  secretMatches,
  signatureMatches,
  sourceAllowed,
} from './source-guard.js';

export interface RefusalCounters {
  secret: number;
  source: number;
  malformed: number;
  busy: number;
  /** The write-ahead log failed (503). */
  walFailed: number;
}

/** Route config understood by the gateway's auth hook: the service posts without an API key. */
const OPEN_ROUTE = { scope: 'open' } as Record<string, unknown>;

export const RECEIVER_PATH = '/postbacks/orders';

const RECEIVED = {
  title: 'PostbackReceived',
  type: 'object',
  required: ['status', 'eventKey'],
  properties: {
    status: { type: 'string', enum: ['accepted', 'duplicate'] },
    eventKey: { type: 'string', description: 'identity of the update' },
  },
} as const;

const SECRET_HEADERS = {
  type: 'object',
  properties: {
    [SIGNATURE_HEADER]: {
      type: 'string',
      description: 'sha256=<hex HMAC-SHA256 of the body under the secret>',
    },
    [SECRET_HEADER]: { type: 'string', description: 'the postback secret (for a relay you run)' },
  },
} as const;

/** The receiver's document: one entry for the header form, one for the secret-in-path form. */
function receiverDoc(inPath: boolean) {
  return routeDoc({
    operationId: inPath ? 'receivePostbackWithSecretInPath' : 'receivePostback',
    tags: ['postbacks'],
    summary: inPath
      ? "Order update from the service, the secret as the URL's last segment (the form its console takes)"
      : 'Order update from the service, authenticated by a signature or secret header',
    auth: 'open',
    body: POSTBACK_BODY_SCHEMA,
    headers: SECRET_HEADERS,
    ...(inPath
      ? {
          params: {
            type: 'object',
            required: ['secret'],
            properties: { secret: { type: 'string', description: 'the postback secret' } },
          },
        }
      : {}),
    responses: {
      200: {
        description: 'A duplicate of a stored update',
        content: { 'application/json': { schema: RECEIVED } },
      },
      202: {
        description: 'Written to the write-ahead log',
        content: { 'application/json': { schema: RECEIVED } },
      },
    },
    errors: [401, 403, 413, 415, 503],
  });
}

/** How a request authenticates, decided before its body is read. */
type Credential = { kind: 'signature'; value: string } | { kind: 'ok' } | { kind: 'refused' };

/** The body text of each request, kept for the signature check and the log (the parsed body is not). */
const rawBodies = new WeakMap<FastifyRequest, string>();

function header(request: FastifyRequest, name: string): string | undefined {
  const h = request.headers[name];
  return Array.isArray(h) ? h[0] : h;
}

function credential(request: FastifyRequest, options: ResolvedReceiverOptions): Credential {
  const signature = header(request, SIGNATURE_HEADER);
  if (signature !== undefined) return { kind: 'signature', value: signature };
  const inHeader = header(request, SECRET_HEADER);
  if (inHeader !== undefined)
    return secretMatches(options.secret, inHeader) ? { kind: 'ok' } : { kind: 'refused' };
  const inPath = (request.params as { secret?: string } | undefined)?.secret;
  if (inPath !== undefined && options.allowSecretInPath) {
    return secretMatches(options.secret, inPath) ? { kind: 'ok' } : { kind: 'refused' };
  }
  return { kind: 'refused' };
}

/** The request as the log may show it: the path without its secret segment, no query string. */
export function redactedRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: (request.routeOptions.url ?? RECEIVER_PATH).replace(':secret', '[secret]'),
    remoteAddress: request.ip,
  };
}

const unauthenticated = () =>
  new PostbackError('POSTBACK_UNAUTHENTICATED', 'missing or wrong postback secret', { status: 401 });

/** JSON bodies only, depth-checked before parsing; the raw text is kept for the signature check. */
function installBodyParsers(
  ctx: FastifyInstance,
  options: ResolvedReceiverOptions,
  refusals: RefusalCounters,
): void {
  ctx.removeAllContentTypeParsers();
  ctx.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (request, body, done) => {
      const text = String(body);
      // Measured on the text, before JSON.parse builds anything: no recursion anywhere.
      if (jsonDepth(text, options.maxBodyDepth) > options.maxBodyDepth) {
        refusals.malformed += 1;
        done(
          new PostbackError('POSTBACK_MALFORMED', `body nests deeper than ${options.maxBodyDepth} levels`, {
            status: 400,
          }),
          undefined,
        );
        return;
      }
      try {
        const parsed: unknown = JSON.parse(text);
        rawBodies.set(request, text);
        done(null, parsed);
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
}

/** Source allowlist and secret or signature, each refusal counted. */
function installAccessChecks(
  ctx: FastifyInstance,
  options: ResolvedReceiverOptions,
  refusals: RefusalCounters,
): void {
  const credentials = new WeakMap<FastifyRequest, Credential>();
  ctx.addHook('onRequest', async (request) => {
    if (options.allowlist && !sourceAllowed(options.allowlist, request.ip)) {
      refusals.source += 1;
      throw new PostbackError('POSTBACK_SOURCE_REFUSED', `source ${request.ip} is not allowed to post`, {
        status: 403,
      });
    }
    const presented = credential(request, options);
    if (presented.kind === 'refused') {
      refusals.secret += 1;
      throw unauthenticated();
    }
    credentials.set(request, presented);
  });
  ctx.addHook('preValidation', async (request) => {
    // A signature covers the body, so it is checked once the body is read (and before the schema).
    const presented = credentials.get(request);
    if (presented?.kind !== 'signature') return;
    if (!signatureMatches(options.secret, rawBodies.get(request) ?? '', presented.value)) {
      refusals.secret += 1;
      throw unauthenticated();
    }
  });
  ctx.addHook('preHandler', async (request) => {
    // Schema failures reach the handler with attachValidation; count them, then refuse.
    if (request.validationError) {
      refusals.malformed += 1;
      throw request.validationError;
    }
  });
}

export function registerReceiverRoutes(
  app: FastifyInstance,
  options: ResolvedReceiverOptions,
  pipeline: OrderEventPipeline,
  refusals: RefusalCounters,
): void {
  void app.register(async (ctx) => {
    installErrorHandler(ctx);
    installBodyParsers(ctx, options, refusals);
    installAccessChecks(ctx, options, refusals);
    const route = {
      config: OPEN_ROUTE,
      bodyLimit: options.bodyLimit,
      attachValidation: true,
      schema: receiverDoc(false),
      logSerializers: { req: redactedRequest },
    };
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const body = rawBodies.get(request) ?? JSON.stringify(request.body);
      const event = toOrderEvent(request.body as Record<string, unknown>, 'postback', Date.now());
      let result: Awaited<ReturnType<OrderEventPipeline['accept']>>;
      try {
        result = await pipeline.accept(event, body);
      } catch (error) {
        refusals.walFailed += 1;
        throw error;
      }
      if (result === 'full') {
        refusals.busy += 1;
        throw new PostbackError('POSTBACK_BUSY', 'receiver backlog full; retry later', {
          status: 503,
          retryable: true,
        });
      }
      return reply.code(result === 'accepted' ? 202 : 200).send({ status: result, eventKey: event.eventKey });
    };
    ctx.post(RECEIVER_PATH, route, handler);
    ctx.post(`${RECEIVER_PATH}/:secret`, { ...route, schema: receiverDoc(true) }, handler);
  });
}
