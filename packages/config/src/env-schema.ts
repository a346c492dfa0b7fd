/**
 * One configuration schema per service: every environment variable it reads, typed, with its
 * default and a description. `readEnv` validates an environment against it once, at start, and
 * names every bad value with what is allowed (never echoing a secret); docs/configuration.md's
 * tables are checked against the same schemas by test/configuration-docs.test.ts, so the docs and
 * the code cannot drift apart silently.
 *
 * The pipeline's variables carry no common prefix (KAFKA_BROKERS, CLICKHOUSE_URL are shared by
 * several services and by compose), so unknown keys cannot be refused in general; a service names
 * the prefixes that are its own (INGESTOR_, QUERY_API_...) and an unknown variable under one of those
 * (a typo such as INGESTOR_WORKER) is refused.
 */

import { hasScheme, schemesOf } from './url-scheme.js';

interface VarBase {
  /** One line for the docs' "meaning" column. */
  description: string;
  /** Never echoed in a message. */
  secret?: boolean;
}

interface Defaulted<T> {
  /** The value when the variable is unset or blank. */
  default: T;
  required?: never;
}

interface Required {
  default?: never;
  required: true;
}

interface Optional {
  default?: never;
  required?: false;
  /** What unset means, for the docs (e.g. "embedded chDB"). */
  unset: string;
}

type Presence<T> = Defaulted<T> | Required | Optional;

export type EnvVarSpec = VarBase &
  (
    | ({ type: 'string' } & Presence<string>)
    | ({ type: 'integer'; min: number; max: number } & Presence<number>)
    | ({ type: 'enum'; values: readonly string[] } & Presence<string>)
    /** A URL whose scheme is one of `protocols` (without "://"). */
    | ({ type: 'url'; protocols: readonly string[] } & Presence<string>)
    /** Comma-separated; blank entries dropped; each entry must match `entry` when given. */
    | ({ type: 'list'; entry?: { pattern: RegExp; allowed: string } } & Presence<string>)
  );

export type EnvSchema = Readonly<Record<string, EnvVarSpec>>;

type ValueOf<V> = V extends { type: 'integer' } ? number : V extends { type: 'list' } ? string[] : string;

/** The typed values of a schema: present when defaulted or required, else possibly undefined. */
export type EnvValues<S extends EnvSchema> = {
  -readonly [K in keyof S]: S[K] extends { default: unknown } | { required: true }
    ? ValueOf<S[K]>
    : ValueOf<S[K]> | undefined;
};

export type Env = Readonly<Record<string, string | undefined>>;

export interface ReadEnvOptions {
  /** Prefixes that belong to this service alone: an unknown variable under one is refused. */
  ownPrefixes?: readonly string[];
}

export interface EnvReading<S extends EnvSchema> {
  values: EnvValues<S>;
  /** One message per bad or missing value; empty when the environment is valid. */
  problems: string[];
}

/** What a variable accepts, in the words of the docs' "allowed" column. */
export function allowedOf(spec: EnvVarSpec): string {
  switch (spec.type) {
    case 'integer':
      return `${spec.min}..${spec.max}`;
    case 'enum':
      return spec.values.join(', ');
    case 'url':
      return `${schemesOf(spec.protocols)} URL`;
    case 'list':
      return spec.entry ? `${spec.entry.allowed}[,${spec.entry.allowed}...]` : 'comma-separated list';
    default:
      return 'text';
  }
}

/** The default as the docs show it: `value`, "required", or "unset: what that means". */
export function defaultOf(spec: EnvVarSpec): string {
  if (spec.required === true) return 'required';
  if (spec.default !== undefined) return `\`${spec.default}\``;
  return `unset: ${(spec as Optional).unset}`;
}

function parse(name: string, spec: EnvVarSpec, raw: string, problems: string[]): unknown {
  const shown = spec.secret === true ? '(not shown)' : `"${raw}"`;
  switch (spec.type) {
    case 'integer': {
      const value = Number(raw);
      if (!Number.isInteger(value) || value < spec.min || value > spec.max) {
        problems.push(`${name} must be an integer in ${spec.min}..${spec.max}, got ${shown}`);
        return undefined;
      }
      return value;
    }
    case 'enum':
      if (!spec.values.includes(raw)) {
        problems.push(`${name} must be one of ${spec.values.join(', ')}, got ${shown}`);
        return undefined;
      }
      return raw;
    case 'url': {
      if (!hasScheme(raw, spec.protocols)) {
        problems.push(`${name} must start with ${schemesOf(spec.protocols)}`);
        return undefined;
      }
      return raw;
    }
    case 'list': {
      const items = raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
      for (const item of items)
        if (spec.entry && !spec.entry.pattern.test(item))
          problems.push(
            `${name} entry ${spec.secret === true ? '(not shown)' : `"${item}"`} must be ${spec.entry.allowed}`,
          );
      return items;
    }
    default:
      return raw;
  }
}

/**
 * Reads every variable of `schema` from `env`: unset and blank mean "not given" (the default
 * applies); values are trimmed. Collects every problem instead of stopping at the first, so one
 * start names all the mistakes.
 */
export function readEnv<S extends EnvSchema>(
  schema: S,
  env: Env,
  options: ReadEnvOptions = {},
): EnvReading<S> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') {
      if (spec.required === true) problems.push(`${name} is required`);
      values[name] =
        spec.default !== undefined
          ? spec.type === 'list'
            ? parse(name, spec, String(spec.default), problems)
            : spec.default
          : undefined;
      continue;
    }
    values[name] = parse(name, spec, raw, problems);
    if (values[name] === undefined && spec.default !== undefined) values[name] = spec.default;
  }
  for (const name of Object.keys(env)) {
    if (name in schema) continue;
    const prefix = options.ownPrefixes?.find((p) => name.startsWith(p));
    if (prefix !== undefined)
      problems.push(
        `${name} is not a known variable (known ${prefix}* variables: ${Object.keys(schema)
          .filter((k) => k.startsWith(prefix))
          .join(', ')})`,
      );
  }
  return { values: values as EnvValues<S>, problems };
}

/** Reads and throws `fail(problems)` when anything is wrong. */
export function loadEnv<S extends EnvSchema>(
  schema: S,
  env: Env,
  fail: (problems: readonly string[]) => Error,
  options: ReadEnvOptions = {},
): EnvValues<S> {
  const { values, problems } = readEnv(schema, env, options);
  if (problems.length > 0) throw fail(problems);
  return values;
}
