/**
 * The ingestor's ops route for subscriptions, authenticated with the ops key (ops-key.ts):
 *
 *   GET  /v1/subscriptions   what is subscribed: counts by kind and connection, the changes kept
 *   POST /v1/subscriptions   {"kind": "trade" | "ohlc" (default trade), "add": [ids], "remove": [ids]}
 *
 * A change is all or nothing (LiveSubscriptions): 200 with what was added and removed; 400
 * BAD_REQUEST naming what is wrong (not JSON, a field of the wrong type, not a security id, more
 * than MAX_IDS_PER_REQUEST); 409 SUBSCRIPTION_LIMIT when it would not fit the connections; 401
 * UNAUTHENTICATED without the key. Errors in the house envelope {"error": {"code", "message"}}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IngestorError } from '../errors.js';
import { SUBSCRIPTION_KINDS, type SubscriptionKind } from '../feed/subscription-book.js';
import type { FeedIngestor } from '../ingestor.js';
import type { OpsKey } from './ops-key.js';

export const SUBSCRIPTIONS_PATH = '/v1/subscriptions';
/** Instruments named in one request at most (a connection's worth); the universe file takes more. */
export const MAX_IDS_PER_REQUEST = 5_000;
/** A request body at most: 5,000 ids of 10 digits in quotes and commas, with room to spare. */
const MAX_BODY_BYTES = 128 * 1024;

type Control = Pick<FeedIngestor, 'changeSubscriptions' | 'subscriptions' | 'metrics'>;

class RouteError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function answer(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES)
      throw new RouteError(413, 'PAYLOAD_TOO_LARGE', `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function idsOf(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new RouteError(400, 'BAD_REQUEST', `${field} must be an array of security ids`);
  return value.map((id) => {
    if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
    if (typeof id === 'string') return id;
    throw new RouteError(400, 'BAD_REQUEST', `${field} must hold security ids (strings or integers)`);
  });
}

/** The change a POST body asks for, checked field by field. */
function changeOf(text: string): { kind: SubscriptionKind; add: string[]; remove: string[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RouteError(400, 'BAD_REQUEST', 'the body must be JSON: {"kind", "add", "remove"}');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new RouteError(400, 'BAD_REQUEST', 'the body must be a JSON object: {"kind", "add", "remove"}');
  const { kind = 'trade', add, remove, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new RouteError(400, 'BAD_REQUEST', `unknown field ${unknown[0]}; allowed: kind, add, remove`);
  if (!SUBSCRIPTION_KINDS.includes(kind as SubscriptionKind))
    throw new RouteError(400, 'BAD_REQUEST', `kind must be ${SUBSCRIPTION_KINDS.join(' or ')}`);
  const change = { kind: kind as SubscriptionKind, add: idsOf(add, 'add'), remove: idsOf(remove, 'remove') };
  const named = change.add.length + change.remove.length;
  if (named === 0)
    throw new RouteError(400, 'BAD_REQUEST', 'add or remove must name at least one instrument');
  if (named > MAX_IDS_PER_REQUEST)
    throw new RouteError(
      400,
      'BAD_REQUEST',
      `at most ${MAX_IDS_PER_REQUEST} instruments per request, got ${named} (the universe file takes more)`,
    );
  return change;
}

async function post(control: Control, request: IncomingMessage): Promise<unknown> {
  const { kind, add, remove } = changeOf(await readBody(request));
  try {
    return control.changeSubscriptions(kind, { add, remove }, 'ops_route');
  } catch (error) {
    if (error instanceof IngestorError && error.code === 'INVALID_REQUEST')
      throw new RouteError(400, 'BAD_REQUEST', error.message);
    if (error instanceof IngestorError && error.code === 'SUBSCRIPTION_LIMIT')
      throw new RouteError(409, 'SUBSCRIPTION_LIMIT', error.message);
    throw error;
  }
}

/** Handles the route; answers 404 for any other path. */
export function subscriptionRoute(
  control: Control,
  key: OpsKey,
  log: (message: string) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const handle = async (): Promise<unknown> => {
      if (path !== SUBSCRIPTIONS_PATH) throw new RouteError(404, 'NOT_FOUND', `no route ${path}`);
      if (!key.admits(request.headers)) {
        control.metrics.subscriptionChangesRefused.inc({ reason: 'unauthenticated' });
        throw new RouteError(401, 'UNAUTHENTICATED', 'the ops key is required (x-api-key)');
      }
      if (request.method === 'GET') return control.subscriptions();
      if (request.method === 'POST') return post(control, request);
      throw new RouteError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`);
    };
    handle().then(
      (body) => answer(response, 200, body),
      (error: unknown) => {
        if (error instanceof RouteError) {
          const allow: Record<string, string> = error.status === 405 ? { allow: 'GET, POST' } : {};
          answer(response, error.status, { error: { code: error.code, message: error.message } }, allow);
          return;
        }
        log(`ops route failed: ${(error as Error).message}`);
        answer(response, 500, { error: { code: 'INTERNAL', message: 'the change failed; see the log' } });
      },
    );
  };
}
