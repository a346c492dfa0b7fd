/**
 * The fastify options every HTTP service's app is made with: the project's server limits
 * (http-server.ts), a request log that never shows a secret (log-redaction.ts), or none, and one
 * validation setting. Query strings arrive as text and are coerced to their schema's types; bodies
 * are never coerced nor stripped of unknown keys, so a route that takes a body checks it as strictly
 * as it needs (the gateway's trading bodies have a compiler of their own).
 */

import { httpServerOptions } from './http-server.js';
import type { ResolvedHttpServiceConfig } from './http-service-config.js';
import { type LogSink, redactingLoggerOptions } from './log-redaction.js';

export interface ServiceLog {
  readonly stream: LogSink;
  /** Read at every write, so a secret learnt later is still redacted. */
  readonly secrets: () => readonly string[];
}

/** Spread into `Fastify({...})`; a service may raise `bodyLimit` after it for its own routes. */
export function serviceAppOptions(
  config: Pick<ResolvedHttpServiceConfig, 'server' | 'logLevel'>,
  log: ServiceLog,
) {
  return {
    ...httpServerOptions(config.server),
    logger:
      config.logLevel === false ? false : redactingLoggerOptions(config.logLevel, log.stream, log.secrets),
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
  } as const;
}
