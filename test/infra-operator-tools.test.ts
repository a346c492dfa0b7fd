/**
 * The operator files pass the tools operators run on them, as shipped:
 * - `promtool check config infra/prometheus/prometheus.yml` (which also checks the rule files it
 *   names, relative to it), `promtool check rules` on the alert file and `promtool test rules` on
 *   its unit tests. promtool is Debian's
 *   `prometheus` package, which scripts/setup.mjs installs for `npm test` (as it does chromium);
 *   missing, these tests fail and say so.
 * - `amtool check-config infra/alertmanager/alertmanager.yml`: amtool is Debian's
 *   `prometheus-alertmanager` package, which scripts/setup.mjs installs likewise.
 * - infra/docker-compose.yml against the Compose specification's JSON schema with ajv. `docker
 *   compose config` needs the compose plugin, which Debian does not package (its docker-compose is
 *   the 1.x line, older than `depends_on.required`); the schema is the official one as the
 *   dclint package ships it (schemas/compose.schema.json), read through its package directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..');
const PROMETHEUS_CONFIG = 'infra/prometheus/prometheus.yml';
const ALERTS = 'infra/prometheus/alerts.yml';
const COMPOSE = 'infra/docker-compose.yml';
const ALERTMANAGER_CONFIG = 'infra/alertmanager/alertmanager.yml';
const require = createRequire(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), 'feedpipe-operator-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function promtool(args: readonly string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    throw new Error(
      `promtool could not run (${result.error.message}): install Debian's prometheus package (scripts/setup.mjs --browser does, as root)`,
    );
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('Prometheus files pass promtool', () => {
  it('check config: the shipped file and the rule files it names', () => {
    const { status, output } = promtool(['check', 'config', PROMETHEUS_CONFIG]);
    expect(output).toContain('SUCCESS: 1 rule files found');
    expect(status, output).toBe(0);
  });

  it('check rules: every alert rule', () => {
    const { status, output } = promtool(['check', 'rules', ALERTS]);
    expect(status, output).toBe(0);
    const rules = parse(readFileSync(join(root, ALERTS), 'utf8')) as { groups: Array<{ rules: unknown[] }> };
    const count = rules.groups.reduce((n, g) => n + g.rules.length, 0);
    expect(output).toContain(`SUCCESS: ${count} rules found`);
  });

  it('test rules: the unit tests of the rules (infra/prometheus/alerts.test.yml)', () => {
    const { status, output } = promtool(['test', 'rules', 'infra/prometheus/alerts.test.yml']);
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it('check config fails on a rule file that is not there (the check is real)', () => {
    const config = join(scratch, 'prometheus.yml');
    writeFileSync(config, 'rule_files:\n  - /etc/prometheus/alerts.yml\n');
    expect(promtool(['check', 'config', config]).status).not.toBe(0);
  });
});

function amtool(args: readonly string[]): { status: number | null; output: string } {
  const result = spawnSync('amtool', args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    throw new Error(
      `amtool could not run (${result.error.message}): install Debian's prometheus-alertmanager package (scripts/setup.mjs --browser does, as root)`,
    );
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the Alertmanager file passes amtool', () => {
  it('check-config: routes, inhibition rules and receivers as shipped', () => {
    const { status, output } = amtool(['check-config', ALERTMANAGER_CONFIG]);
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
    const config = parse(readFileSync(join(root, ALERTMANAGER_CONFIG), 'utf8')) as {
      inhibit_rules: unknown[];
      receivers: unknown[];
    };
    expect(output).toContain(`${config.inhibit_rules.length} inhibit rules`);
    expect(output).toContain(`${config.receivers.length} receivers`);
  });

  it('check-config fails on a route to a receiver that is not defined (the check is real)', () => {
    const config = join(scratch, 'alertmanager.yml');
    writeFileSync(config, 'route:\n  receiver: nobody\nreceivers:\n  - name: somebody\n');
    expect(amtool(['check-config', config]).status).not.toBe(0);
  });

  it('Prometheus sends its alerts to the compose Alertmanager, which compose runs with this file', () => {
    const prometheus = parse(readFileSync(join(root, PROMETHEUS_CONFIG), 'utf8')) as {
      alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    };
    const targets = prometheus.alerting.alertmanagers.flatMap((a) =>
      a.static_configs.flatMap((c) => c.targets),
    );
    expect(targets).toEqual(['alertmanager:9093']);
    const compose = parse(readFileSync(join(root, COMPOSE), 'utf8'), { merge: true }) as {
      services: Record<string, { volumes?: string[]; command?: string[] }>;
    };
    const alertmanager = compose.services.alertmanager;
    expect(alertmanager?.volumes).toContain(
      './alertmanager/alertmanager.yml:/etc/alertmanager/alertmanager.yml:ro',
    );
    expect(alertmanager?.command).toContain('--config.file=/etc/alertmanager/alertmanager.yml');
    // A single Alertmanager opens no cluster port (it would listen on every interface).
    expect(alertmanager?.command).toContain('--cluster.listen-address=');
  });
});

describe('infra/docker-compose.yml against the Compose specification', () => {
  const schemaFile = join(dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $schema: string; title: string };
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The schema names draft-07 by its https address; it is the draft-07 meta-schema ajv ships.
  const draft7 = require('ajv/dist/refs/json-schema-draft-07.json') as Record<string, unknown>;
  ajv.addMetaSchema({ ...draft7, $id: schema.$schema });
  const validate = ajv.compile(schema);
  // YAML merge keys (<<: *anchor) resolved, as compose does before validating.
  const compose = () =>
    parse(readFileSync(join(root, COMPOSE), 'utf8'), { merge: true }) as Record<string, unknown>;

  it('is valid', () => {
    expect(schema.title).toBe('Compose Specification');
    validate(compose());
    expect(validate.errors ?? []).toEqual([]);
  });

  it('a misspelt key or a wrong type is refused (the check is real)', () => {
    const broken = compose();
    broken.servces = {};
    (broken.services as Record<string, Record<string, unknown>>)['query-api'] = { image: 'x', ports: 8080 };
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath || e.params)).toEqual(
      expect.arrayContaining([{ additionalProperty: 'servces' }, '/services/query-api/ports']),
    );
  });
});
