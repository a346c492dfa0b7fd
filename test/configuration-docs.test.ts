/**
 * docs/configuration.md against the services' configuration schemas: every variable a schema
 * declares is in its service's table with the same default ("required", the value in backticks, or
 * "unset: ..." for an optional one), and every variable a service's table documents is in its
 * schema. A new variable, a changed default or a forgotten one fails here instead of drifting.
 */

import { readFileSync } from 'node:fs';
import { allowedOf, defaultOf, type EnvSchema, type EnvVarSpec } from '@feedpipe/config';
import { CREDENTIALS_ENV } from '@feedpipe/credentials';
import { INGESTOR_ENV, REPLAY_ENV } from '@feedpipe/feed-ingestor';
import { SINK_ENV } from '@feedpipe/feed-sink';
import { HISTORY_LOADER_ENV, PIPELINE_LOAD_ENV } from '@feedpipe/history-loader';
import { QUERY_API_ENV } from '@feedpipe/query-api';
import { DISK_GUARD_ENV, HTTP_SERVER_ENV } from '@feedpipe/service-kit';
import { RETENTION_ENV, TTL_DELETES_ENV } from '@feedpipe/store';
import { GATEWAY_ENV } from '@feedpipe/trading-gateway';
import { describe, expect, it } from 'vitest';
import { START_ENV } from '../scripts/start/start-env.js';

const DOC = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');

/** The first table after `heading`, before the next heading: variable -> its row's cells. */
function tableAfter(heading: string): Map<string, Record<string, string>> {
  const lines = DOC.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  expect(start, `heading "${heading}" in docs/configuration.md`).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, Record<string, string>>();
  let header: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (header) break;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    if (!header) {
      header = cells;
      continue;
    }
    if (cells.every((c) => /^-+$/.test(c))) continue;
    const row = Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
    // One row may document several variables: `A`, `B`.
    for (const name of (row.variable ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g))
      rows.set(name[1] as string, row);
  }
  return rows;
}

function defaultMatches(spec: EnvVarSpec, cell: string): boolean {
  if (spec.required === true) return cell.startsWith('required');
  if (spec.default !== undefined) return cell.startsWith(defaultOf(spec));
  // Optional without a default: the docs say what unset means.
  return cell.startsWith('unset') || cell.startsWith('required with');
}

/**
 * The credential variables (spread into every schema that talks to the service) and the HTTP server
 * limits (spread into both HTTP services' schemas) are documented once, in their own tables; a
 * service that defines one of the same name itself documents its own.
 */
const CREDENTIALS_HEADING = '## Credentials (packages/credentials/src/config.ts)';
const HTTP_SERVERS_HEADING = '## HTTP servers (packages/service-kit/src/http-server-limits.ts)';
function ownPart(schema: EnvSchema): EnvSchema {
  const shared: Readonly<Record<string, EnvVarSpec>> = { ...CREDENTIALS_ENV, ...HTTP_SERVER_ENV };
  return Object.fromEntries(Object.entries(schema).filter(([name, spec]) => shared[name] !== spec));
}

const SERVICES: Array<{ service: string; heading: string; schema: EnvSchema }> = [
  { service: 'credentials', heading: CREDENTIALS_HEADING, schema: CREDENTIALS_ENV },
  { service: 'HTTP servers', heading: HTTP_SERVERS_HEADING, schema: HTTP_SERVER_ENV },
  {
    service: 'feed-ingestor',
    heading: '### `run` (services/feed-ingestor/src/env-config.ts)',
    schema: ownPart(INGESTOR_ENV),
  },
  {
    service: 'feed-ingestor replay',
    heading: '### `replay` (services/feed-ingestor/src/replay/replay-cli.ts)',
    schema: REPLAY_ENV,
  },
  { service: 'feed-sink', heading: '## feed-sink', schema: SINK_ENV },
  { service: 'history-loader', heading: '## history-loader', schema: ownPart(HISTORY_LOADER_ENV) },
  { service: 'query-api', heading: '## query-api', schema: ownPart(QUERY_API_ENV) },
  { service: 'trading-gateway', heading: '## trading-gateway', schema: ownPart(GATEWAY_ENV) },
];

describe('docs/configuration.md matches the configuration schemas', () => {
  for (const { service, heading, schema } of SERVICES) {
    it(`${service}: every schema variable documented with its default, nothing documented that is not read`, () => {
      const documented = tableAfter(heading);
      const problems: string[] = [];
      for (const [name, spec] of Object.entries(schema)) {
        const row = documented.get(name);
        if (!row) {
          problems.push(`${name} is read by ${service} but not documented`);
          continue;
        }
        const cell = row.default ?? '';
        if (!defaultMatches(spec, cell))
          problems.push(`${name}: docs say "${cell}", schema says ${defaultOf(spec)}`);
        // Where the table has an "allowed" column, a range or set of values must match the schema's.
        const allowed = row.allowed;
        if (allowed && (spec.type === 'integer' || spec.type === 'enum') && allowed !== allowedOf(spec))
          problems.push(`${name}: docs allow "${allowed}", schema allows ${allowedOf(spec)}`);
      }
      for (const name of documented.keys())
        if (!(name in schema)) problems.push(`${name} is documented for ${service} but not in its schema`);
      expect(problems).toEqual([]);
    });
  }

  it('both HTTP services read every HTTP server variable', () => {
    for (const schema of [QUERY_API_ENV, GATEWAY_ENV])
      for (const name of Object.keys(HTTP_SERVER_ENV)) expect(schema).toHaveProperty(name);
  });

  it('store retention: every STORE_TTL_* variable documented with its default, nothing more', () => {
    const documented = tableAfter('### Retention (packages/store/src/retention)');
    const problems: string[] = [];
    for (const { name, defaultDays } of RETENTION_ENV) {
      const row = documented.get(name);
      if (!row) problems.push(`${name} is read by the store but not documented`);
      else if (!row.default?.startsWith(`\`${defaultDays}\``))
        problems.push(`${name}: docs say "${row.default}", default is ${defaultDays}`);
    }
    if (documented.get(TTL_DELETES_ENV)?.default !== '`run`')
      problems.push(`${TTL_DELETES_ENV}: default \`run\``);
    const known = new Set([...RETENTION_ENV.map((v) => v.name), TTL_DELETES_ENV]);
    for (const name of documented.keys())
      if (!known.has(name)) problems.push(`${name} is documented but not read`);
    expect(problems).toEqual([]);
  });

  it('every service that talks to the service reads every credential variable', () => {
    for (const schema of [INGESTOR_ENV, HISTORY_LOADER_ENV, GATEWAY_ENV])
      for (const name of Object.keys(CREDENTIALS_ENV)) expect(schema).toHaveProperty(name);
  });

  it("npm start: the history load's variables documented with their defaults", () => {
    // The npm start table documents other parts' variables too: only this direction is checked.
    const documented = tableAfter('## `npm start` (scripts/start.ts)');
    for (const [name, spec] of Object.entries(PIPELINE_LOAD_ENV)) {
      const cell = documented.get(name)?.default ?? '(not documented)';
      expect(defaultMatches(spec, cell), `${name}: docs say "${cell}", schema says ${defaultOf(spec)}`).toBe(
        true,
      );
    }
  });

  it('npm start: every variable it reads for itself documented in its table with its default', () => {
    const documented = tableAfter('## `npm start` (scripts/start.ts)');
    const problems: string[] = [];
    for (const [name, spec] of Object.entries(START_ENV)) {
      // The disk guard's variables are feed-sink's, documented in its table (as the section says).
      if (name in DISK_GUARD_ENV) continue;
      const cell = documented.get(name)?.default;
      if (cell === undefined) problems.push(`${name} is read by npm start but not documented`);
      else if (!defaultMatches(spec, cell))
        problems.push(`${name}: docs say "${cell}", schema says ${defaultOf(spec)}`);
    }
    expect(problems).toEqual([]);
  });

  it('no longer documents a metrics-host gap that the services have closed', () => {
    const operations = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    for (const schema of [INGESTOR_ENV, SINK_ENV, HISTORY_LOADER_ENV])
      expect(schema).toHaveProperty('METRICS_HOST');
    expect(`${DOC}\n${operations}`).not.toMatch(/Known gap/);
  });
});
