/**
 * Logging that cannot carry a secret, in two layers:
 *
 * 1. Serializers. A request is logged as its method and the pattern of the route it matched
 *    (`/postbacks/orders/:secret`, never the concrete path), with no query string and no header, so
 *    neither `?key=...`, a secret path segment nor an `x-api-key`/`authorization`/cookie value can
 *    reach a request line. A request that matched no route logs `(no route)`: its path is caller
 *    input, and may be a secret URL hit with the wrong method.
 * 2. A redacting destination. Every serialized line passes through `redactLogText` before it is
 *    written, because fastify and libraries also build message strings from raw URLs ("Reply was
 *    already sent ... in the "/x?key=..." route") that no serializer sees. It strips query strings
 *    after a path, API keys by their shape, and the literal secrets the process knows (the postback
 *    secret, an upstream access token).
 */
import type { FastifyRequest } from 'fastify';

/** Where log lines go: process.stdout by default, a capturing sink in tests. */
export interface LogSink {
  write(line: string): unknown;
}

export const REDACTED = '[redacted]';
export const NO_ROUTE = '(no route)';

/** `fpk_<key_id>_<secret>`, loosely: a malformed key presented by a caller is still a secret. */
const API_KEY_SHAPE = /\bfpk_([0-9A-Za-z]{1,64})_[A-Za-z0-9_-]+/g;
/** A path followed by a query string, inside a message or a JSON string. */
const QUERY_STRING = /(\/[^\s"'?#<>\\]*)\?[^\s"'#<>\\]*/g;
/** Shorter literals would shred ordinary words out of the logs; real secrets are far longer. */
const MIN_LITERAL_SECRET = 8;

export interface RequestLogFields {
  [field: string]: unknown;
  method: string;
  route: string;
  remoteAddress: string;
}

/** The `req` serializer: method and matched route pattern, nothing the caller chose. */
export function serializeRequest(request: FastifyRequest): RequestLogFields {
  return {
    method: request.method,
    route: request.routeOptions?.url ?? NO_ROUTE,
    remoteAddress: request.ip,
  };
}

/** Removes query strings, API keys and the given literal secrets (and their URL-encoded forms). */
export function redactLogText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(QUERY_STRING, `$1?${REDACTED}`).replace(API_KEY_SHAPE, `fpk_$1_${REDACTED}`);
  for (const secret of secrets) {
    if (secret.length < MIN_LITERAL_SECRET) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/**
 * A destination that redacts every line before `sink` sees it. `secrets` is read per line, so a
 * secret that becomes known after the logger exists (a key created later) is covered too.
 */
export function redactingSink(sink: LogSink, secrets: () => readonly string[]): LogSink {
  return {
    write(line: string) {
      return sink.write(redactLogText(line, secrets()));
    },
  };
}

/** fastify logger options with both layers. */
export function redactingLoggerOptions(
  level: string,
  sink: LogSink,
  secrets: () => readonly string[],
): {
  level: string;
  stream: LogSink;
  serializers: { req: (request: FastifyRequest) => RequestLogFields };
} {
  return { level, stream: redactingSink(sink, secrets), serializers: { req: serializeRequest } };
}
