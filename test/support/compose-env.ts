/**
 * infra/docker-compose.yml read the way `docker compose` reads it, for the tests that hold the file
 * to the code: `.env` files, variable interpolation (`${VAR:-default}`, `${VAR:?message}`, `$$`),
 * YAML merge keys, and what one service gets: its environment, its secrets and its mounts. No Docker
 * engine is needed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const INFRA_DIR = join(REPO_ROOT, 'infra');
export const COMPOSE_FILE = join(INFRA_DIR, 'docker-compose.yml');
export const ENV_EXAMPLE_FILE = join(INFRA_DIR, '.env.example');

export interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  secrets?: Array<string | { source: string; target?: string }>;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  profiles?: string[];
}

export interface ComposeDocument {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { environment?: string; file?: string }>;
}

/** `NAME=value` lines of an env file (comments and blank lines skipped; no quoting, as ours has none). */
export function readEnvFile(path: string): Map<string, string> {
  const entries = [...readFileSync(path, 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)];
  return new Map(entries.map((m) => [m[1] ?? '', m[2] ?? '']));
}

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}; $$ is a literal $. */
export function interpolate(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Z0-9_]+)(?:(:?[-?])((?:[^}$]|\$\$)*))?\}/g, (whole, name, op, arg) => {
    if (whole === '$$') return '$';
    const value = env.get(name as string);
    if (op === ':-') return value ? value : (arg ?? '');
    if (op === '-') return value ?? arg ?? '';
    if (value === undefined || value === '') {
      if (op === ':?' || op === '?') throw new Error(`${name} is required: ${arg}`);
    }
    return value ?? '';
  });
}

/** The compose file as written (variables not interpolated), merge keys resolved. */
export function readCompose(): ComposeDocument {
  return parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as ComposeDocument;
}

/**
 * The compose file as `docker compose config` would see it with `env` (an .env file's variables):
 * parsed first, then every string value interpolated (so `${VAR:-}` is an empty string, not null).
 */
export function composeWith(env: ReadonlyMap<string, string>): ComposeDocument {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return interpolate(node, env);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    }
    return node;
  };
  return walk(readCompose()) as ComposeDocument;
}

/** The environment one container gets (values as strings; a null value, `NAME:` alone, is left out). */
export function containerEnvironment(doc: ComposeDocument, service: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc.services[service]?.environment ?? {})) {
    if (value !== null) env[key] = String(value);
  }
  return env;
}

/** The secrets a service mounts: name -> path in the container (/run/secrets/<name> by default). */
export function secretMounts(doc: ComposeDocument, service: string): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const entry of doc.services[service]?.secrets ?? []) {
    const source = typeof entry === 'string' ? entry : entry.source;
    const target = typeof entry === 'string' ? undefined : entry.target;
    mounts.set(source, target?.startsWith('/') ? target : `/run/secrets/${target ?? source}`);
  }
  return mounts;
}

export interface Mount {
  source: string;
  target: string;
  readOnly: boolean;
}

/** Short-syntax volume mounts (`source:target[:ro]`) of a service. */
export function volumeMounts(doc: ComposeDocument, service: string): Mount[] {
  return (doc.services[service]?.volumes ?? []).map((spec) => {
    const [source = '', target = '', mode] = spec.split(':');
    return { source, target, readOnly: mode === 'ro' };
  });
}

/** Services given an account of the upstream service (SVC_CLIENT_ID): those that need its token. */
export function servicesOfTheAccount(doc: ComposeDocument): string[] {
  return Object.entries(doc.services)
    .filter(([, service]) => service.environment?.SVC_CLIENT_ID !== undefined)
    .map(([name]) => name)
    .sort();
}
