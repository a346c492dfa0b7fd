/**
 * The options of a `create*` function, declared once as a schema: each key's kind, its range and
 * its default. `readOptions` checks an options object against it at construction: an unknown key
 * is refused with the list of allowed ones, a bad value with what is allowed, and the defaults are
 * filled in, so a factory reads settled values and never checks a key again. Every problem is
 * named in one error (the caller's own, so a package keeps its error codes).
 *
 * Values the type system already describes and that have no range (a store port, a callback, a
 * metrics registry, a nested section with a reader of its own) are declared `given`: the reader
 * only knows them as allowed keys.
 */

import { hasScheme, schemesOf } from './url-scheme.js';

interface Presence<T> {
  /** The value when the key is absent (or undefined). */
  default?: T;
  /** The key must be given. */
  required?: true;
}

export type OptionSpec =
  | ({ kind: 'integer'; min: number; max: number } & Presence<number>)
  | ({ kind: 'number'; min: number; max: number } & Presence<number>)
  | ({ kind: 'boolean' } & Presence<boolean>)
  /** A non-empty string. */
  | ({ kind: 'string' } & Presence<string>)
  /** One of `values` (strings, numbers, or `false` for "none" beside them). */
  | ({ kind: 'enum'; values: readonly (string | number | boolean)[] } & Presence<string | number | boolean>)
  /** A string matching `pattern`; `allowed` says what that is in the messages (`a date YYYY-MM-DD`). */
  | ({ kind: 'pattern'; pattern: RegExp; allowed: string } & Presence<string>)
  /** A URL whose scheme is one of `protocols` (without "://"). */
  | ({ kind: 'url'; protocols: readonly string[] } & Presence<string>)
  /**
   * An array of at least `minLength` entries (default 0), each one of `values` when given (else
   * the entries are the caller's to check).
   */
  | ({ kind: 'list'; minLength?: number; values?: readonly (string | number)[] } & Presence<
      readonly (string | number)[]
    >)
  /**
   * A nested object read against `schema` in the same pass (its problems named under its key);
   * absent, it is read as `{}`, so its defaults are always filled in.
   */
  | ({ kind: 'section'; schema: OptionsSchema } & Presence<never>)
  | ({ kind: 'given' } & Presence<never>);

export type OptionsSchema = Readonly<Record<string, OptionSpec>>;

type ValueOf<V> = V extends { kind: 'section'; schema: infer S extends OptionsSchema }
  ? OptionValues<S>
  : V extends { kind: 'integer' | 'number' }
    ? number
    : V extends { kind: 'boolean' }
      ? boolean
      : V extends { kind: 'enum'; values: readonly (infer E)[] }
        ? E
        : V extends { kind: 'string' | 'url' | 'pattern' }
          ? string
          : V extends { kind: 'list'; values: readonly (infer E)[] }
            ? readonly E[]
            : V extends { kind: 'list' }
              ? readonly unknown[]
              : unknown;

/** The checked values: present when defaulted or required, else possibly undefined. */
export type OptionValues<S extends OptionsSchema> = {
  -readonly [K in keyof S]: S[K] extends { default: unknown } | { required: true } | { kind: 'section' }
    ? ValueOf<S[K]>
    : ValueOf<S[K]> | undefined;
};

export interface ReadOptionsContext {
  /** What the options are of, first in every message: `sink`, `query API config.stream`. */
  where: string;
  /** The caller's error for the joined problems (e.g. its CONFIG_INVALID). */
  fail: (message: string) => Error;
}

/** A nested section of a schema, read in the same pass: `rateLimit: section({ burst: ... })`. */
export function section<const S extends OptionsSchema>(schema: S): { kind: 'section'; schema: S } {
  return { kind: 'section', schema };
}

/**
 * Optional keys the reader knows only by name (ports, callbacks, sections with readers of their
 * own), for a schema to spread: `{ store: { kind: 'given', required: true }, ...given('registry', 'log') }`.
 */
export function given<const K extends string>(...keys: K[]): { readonly [P in K]: { kind: 'given' } } {
  return Object.fromEntries(keys.map((key) => [key, { kind: 'given' }])) as { [P in K]: { kind: 'given' } };
}

/** What a key accepts, in the words of the messages. */
export function allowedOption(spec: OptionSpec): string {
  switch (spec.kind) {
    case 'integer':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'number':
      return `a number from ${spec.min} to ${spec.max}`;
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a non-empty string';
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'url':
      return `a ${schemesOf(spec.protocols)} URL`;
    case 'pattern':
      return spec.allowed;
    case 'list': {
      const entries = spec.values ? ` of ${spec.values.join(', ')}` : '';
      return (spec.minLength ?? 0) > 0
        ? `a list${entries} of at least ${spec.minLength}`
        : `a list${entries}`;
    }
    case 'section':
      return 'an object';
    case 'given':
      return 'any value';
  }
}

function accepts(spec: OptionSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= spec.min && value <= spec.max;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && value.length > 0;
    case 'enum':
      return (
        (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
        spec.values.includes(value)
      );
    case 'url':
      return typeof value === 'string' && hasScheme(value, spec.protocols);
    case 'pattern':
      return typeof value === 'string' && spec.pattern.test(value);
    case 'list':
      return (
        Array.isArray(value) &&
        value.length >= (spec.minLength ?? 0) &&
        (spec.values === undefined || value.every((entry) => spec.values?.includes(entry)))
      );
    case 'section':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'given':
      return true;
  }
}

/** Checks `given` against `schema` once and fills in the defaults; throws context.fail otherwise. */
export function readOptions<S extends OptionsSchema>(
  schema: S,
  given: object | undefined,
  context: ReadOptionsContext,
): OptionValues<S> {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    throw context.fail(`${context.where}: the options must be an object`);
  }
  const problems: string[] = [];
  const values = collect(schema, (given ?? {}) as Record<string, unknown>, '', problems);
  if (problems.length > 0) throw context.fail(`${context.where}: ${problems.join('; ')}`);
  return values as OptionValues<S>;
}

/** Reads `options` into values and problems; `path` names the section (`daily.`) in the problems. */
function collect(
  schema: OptionsSchema,
  options: Record<string, unknown>,
  path: string,
  problems: string[],
): Record<string, unknown> {
  const keys = Object.keys(schema);
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(schema, key))
      problems.push(`unknown option "${path}${key}" (allowed: ${keys.join(', ')})`);
  }
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const spec = schema[key] as OptionSpec;
    const value = options[key];
    if (value === undefined && spec.required)
      problems.push(`"${path}${key}" is required (${allowedOption(spec)})`);
    if (value !== undefined && !accepts(spec, value))
      problems.push(`"${path}${key}" must be ${allowedOption(spec)}`);
    else if (spec.kind === 'section')
      values[key] = collect(
        spec.schema,
        (value ?? {}) as Record<string, unknown>,
        `${path}${key}.`,
        problems,
      );
    else values[key] = value === undefined ? spec.default : value;
  }
  return values;
}
