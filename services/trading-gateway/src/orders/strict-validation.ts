/**
 * The validator compiler of the trading routes. The application's shared ajv coerces types, as
 * query strings need (they are text by nature): there `"5"` must mean 5. A trading body is JSON and
 * already typed, and coercion there turns a mistake into an order: `"5"` into 5, `true` into 1,
 * `null` into 0, `["ACTIVATE"]` into `"ACTIVATE"`. So bodies of these routes are checked by an ajv
 * that never coerces, and anything but the declared type is a 400 naming the field; params and
 * query strings of the same routes keep coercion.
 */

import { isCalendarDate } from '@feedpipe/service-http';
import { Ajv, type Options } from 'ajv';
import type { FastifyInstance, FastifySchema, FastifySchemaCompiler } from 'fastify';

/** As the application's ajv (app.ts), except for coercion. */
const COMMON: Options = { removeAdditional: false, useDefaults: true, allErrors: false };

function newAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...COMMON, coerceTypes });
  // `format: 'date'` is a real calendar day: ajv alone knows no formats, and a pattern cannot tell
  // 2026-02-30 from 2026-03-02.
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  return ajv;
}

function createCompiler(): FastifySchemaCompiler<FastifySchema> {
  const bodies = newAjv(false);
  const text = newAjv('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodies : text).compile(schema as object);
}

// One pair of ajv per application: ajv keeps every schema it compiled, so a module-wide pair would
// hold the schemas of every application a process (or a test run) ever created.
const compilers = new WeakMap<FastifyInstance, FastifySchemaCompiler<FastifySchema>>();

/** The strict compiler for a trading route of `app` (pass as the route's `validatorCompiler`). */
export function tradeValidatorCompiler(app: FastifyInstance): FastifySchemaCompiler<FastifySchema> {
  let compiler = compilers.get(app);
  if (!compiler) {
    compiler = createCompiler();
    compilers.set(app, compiler);
  }
  return compiler;
}
