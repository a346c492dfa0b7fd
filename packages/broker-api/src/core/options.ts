/**
 * The client's option objects are read once, at construction, by the declarative reader of
 * @feedpipe/config against a schema declared beside each class: an unknown key is refused with the
 * allowed list, a bad value with what is allowed, as an INVALID_ARGUMENT BrokerApiError.
 */
import { type OptionsSchema, type OptionValues, readOptions } from '@feedpipe/config';
import { invalidArgument } from './errors.js';

/** An integer option without an upper bound of its own. */
export const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Reads `options` (`where` names them in the messages) against `schema`, defaults filled in. */
export function readApiOptions<S extends OptionsSchema>(
  schema: S,
  options: unknown,
  where: string,
): OptionValues<S> {
  return readOptions(schema, options as object | undefined, { where, fail: invalidArgument });
}

/**
 * An http(s) URL the client appends paths to (the schema checked its scheme): it must parse and
 * carry no query or fragment, and loses its trailing slashes, which would double up with the paths.
 */
export function baseUrlOf(value: string, key: string, where: string): string {
  if (!URL.canParse(value)) throw invalidArgument(`${where}: "${key}" must be an absolute http(s) URL`);
  const url = new URL(value);
  if (url.search !== '' || url.hash !== '') {
    throw invalidArgument(`${where}: "${key}" must not carry a query or fragment`);
  }
  return value.replace(/\/+$/, '');
}

/** A map option (keys of the caller's choosing, so no schema): it must be a plain object. */
export function asRecord(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}
