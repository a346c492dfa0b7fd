/**
 * infra/docker-compose.yml is checked without a Docker engine: parsed as YAML and held against the
 * repository (paths, bins, Dockerfile, Prometheus scrape targets, .env.example). Where the compose
 * plugin is installed, `docker compose config -q` validates it against the Compose specification
 * too (the docker client of this project's machines has no compose plugin: there, the YAML checks
 * are all there is).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MARKET_DATA_TABLES } from '../services/query-api/src/sql/allowed-tables.js';
import { interpolate } from './support/compose-env.js';

const root = join(import.meta.dirname, '..');
const infra = join(root, 'infra');
const composeFile = join(infra, 'docker-compose.yml');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[] | string;
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  profiles?: string[];
  healthcheck?: { test: string[] };
  secrets?: string[];
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { environment?: string }>;
}

const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as ComposeFile;
const services = compose.services;

/** Variables .env.example names, set or commented out (`# NAME=value`). */
const exampleVariables = new Set(
  [...read('infra/.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] ?? ''),
);
const exampleValues = new Map(
  [...read('infra/.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
);

/**
 * `docker compose config -q` validates against the Compose specification; it needs the compose
 * plugin but no engine. Returns its complaint, or null when it accepts the file or is not installed.
 */
function composeConfigProblem(): string | null {
  const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 20_000 });
  if (plugin.status !== 0) return null;
  const result = spawnSync(
    'docker',
    [
      'compose',
      '-f',
      composeFile,
      '--env-file',
      join(infra, '.env.example'),
      '--profile',
      'demo',
      'config',
      '-q',
    ],
    { encoding: 'utf8', timeout: 60_000, cwd: dirname(composeFile) },
  );
  return result.status === 0 ? null : `docker compose config: ${result.stderr || result.error?.message}`;
}

const FEEDPIPE_SERVICES = [
  'feed-ingestor',
  'sink',
  'history-loader',
  'query-api',
  'trading-gateway',
  'broker-sim',
];

/** The command's words, including those of a `sh -c` script. */
function commandOf(service: ComposeService): string[] {
  const command = service.command ?? [];
  return (Array.isArray(command) ? command : [command]).flatMap((part) => part.split(/\s+/));
}

/** Bins of the workspaces, from their package.json files. */
function workspaceBins(): Set<string> {
  const bins = new Set<string>();
  for (const dir of [
    'services/feed-ingestor',
    'services/feed-sink',
    'services/history-loader',
    'services/query-api',
    'services/trading-gateway',
    'packages/broker-sim',
  ]) {
    const pkg = JSON.parse(read(`${dir}/package.json`)) as { bin?: Record<string, string> };
    for (const [name, path] of Object.entries(pkg.bin ?? {})) {
      if (existsSync(join(root, dir, path))) bins.add(name);
    }
  }
  return bins;
}

describe('infra/docker-compose.yml', () => {
  it('runs Kafka in KRaft mode, ClickHouse, Prometheus, Grafana and every service', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['kafka', 'clickhouse', 'prometheus', 'grafana', ...FEEDPIPE_SERVICES]),
    );
    const kafka = services.kafka;
    expect(kafka?.image).toMatch(/apache\/kafka:4\./);
    expect(String(kafka?.environment?.KAFKA_PROCESS_ROLES)).toBe('broker,controller');
    expect(kafka?.environment?.KAFKA_CONTROLLER_QUORUM_VOTERS).toBeDefined();
    expect(services.clickhouse?.image).toMatch(/^\$\{CLICKHOUSE_IMAGE:-clickhouse\/clickhouse-server:/);
    expect(services['broker-sim']?.profiles).toEqual(['demo']);
  });

  it('builds every feedpipe service from the one Dockerfile and starts it through a workspace bin', () => {
    const bins = workspaceBins();
    for (const name of FEEDPIPE_SERVICES) {
      const service = services[name];
      expect(service?.build?.dockerfile, name).toBe('infra/docker/Dockerfile');
      const context = resolve(infra, service?.build?.context ?? '');
      expect(context, name).toBe(root);
      expect(existsSync(join(context, service?.build?.dockerfile ?? ''))).toBe(true);
      const command = commandOf(service ?? {});
      const npx = command.indexOf('npx');
      expect(npx, `${name} runs through npx`).toBeGreaterThanOrEqual(0);
      expect(bins.has(command[npx + 1] ?? ''), `${name}: ${command.join(' ')}`).toBe(true);
      // Scripts the command runs first are in the image (COPY . .) and executable.
      for (const part of command.slice(0, npx)) {
        if (!part.startsWith('infra/')) continue;
        accessSync(join(root, part), constants.X_OK);
      }
    }
    expect(commandOf(services['feed-ingestor'] ?? {}).slice(-2)).toEqual(['feed-ingestor', 'run']);
    expect(commandOf(services.sink ?? {}).slice(-2)).toEqual(['feed-sink', 'run']);
  });

  it('points every service at Kafka and ClickHouse inside the compose network', () => {
    const env = new Map(exampleValues);
    for (const name of ['feed-ingestor', 'sink', 'query-api', 'trading-gateway']) {
      expect(services[name]?.environment?.KAFKA_BROKERS, name).toBe('kafka:9092');
    }
    for (const name of ['sink', 'history-loader', 'query-api', 'trading-gateway']) {
      const url = new URL(interpolate(String(services[name]?.environment?.CLICKHOUSE_URL), env));
      expect(url.host, name).toBe('clickhouse:8123');
      expect(url.username).toBe(env.get('CLICKHOUSE_USER'));
      expect(decodeURIComponent(url.password)).toBe(env.get('CLICKHOUSE_PASSWORD'));
    }
  });

  it('gives the trading credentials to the trading gateway, never to the query API', () => {
    const gateway = services['trading-gateway']?.environment ?? {};
    for (const name of ['SVC_BASE_URL', 'SVC_CLIENT_ID', 'SVC_ACCESS_TOKEN', 'POSTBACK_SECRET']) {
      expect(gateway[name], name).toBeDefined();
    }
    expect(commandOf(services['trading-gateway'] ?? {}).slice(-2)).toEqual(['trading-gateway', 'run']);
    const api = services['query-api'];
    const held = Object.keys(api?.environment ?? {}).filter((name) => /^(SVC_|POSTBACK_)/.test(name));
    expect(held).toEqual([]);
    expect(commandOf(api ?? {})).not.toContain('infra/docker/demo-token.sh');
  });

  it('passes each ingestor its ops key as a compose secret, and serves its ops route on BIND_ADDRESS', () => {
    const published = {
      'feed-ingestor': 'INGESTOR_OPS_PUBLISHED_PORT:-9467',
      'feed-ingestor-2': 'INGESTOR_2_OPS_PUBLISHED_PORT:-9468',
    };
    for (const [name, port] of Object.entries(published)) {
      const ingestor = services[name] ?? {};
      const env = ingestor.environment ?? {};
      // The key is a file under /run/secrets made from INGESTOR_OPS_KEY in infra/.env, which the
      // container's environment never holds.
      expect(env.INGESTOR_OPS_KEY, name).toBeUndefined();
      expect(env.INGESTOR_OPS_KEY_FILE, name).toBe('/run/secrets/ingestor_ops_key');
      expect(ingestor.secrets, name).toContain('ingestor_ops_key');
      expect(ingestor.ports, name).toContain(
        `\${BIND_ADDRESS:-127.0.0.1}:\${${port}}:${env.INGESTOR_OPS_PORT}`,
      );
      expect(env.INGESTOR_OPS_HOST, name).toBe('0.0.0.0');
    }
    expect(compose.secrets?.ingestor_ops_key?.environment).toBe('INGESTOR_OPS_KEY');
    // Empty in the example: no ops route until an operator sets a key.
    expect(exampleValues.get('INGESTOR_OPS_KEY')).toBe('');
    for (const [name, service] of Object.entries(services)) {
      if (!(name in published)) expect(service.secrets ?? [], name).not.toContain('ingestor_ops_key');
    }
  });

  it('references only files that exist, declared volumes and defined services', () => {
    const env = new Map(exampleValues);
    const declared = new Set(Object.keys(compose.volumes ?? {}));
    const problems: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = interpolate(volume, env).split(':')[0] ?? '';
        if (source.startsWith('.') || source.startsWith('/')) {
          if (!existsSync(resolve(infra, source))) problems.push(`${name}: ${source} does not exist`);
        } else if (!declared.has(source)) {
          problems.push(`${name}: volume ${source} is not declared`);
        }
      }
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        if (!services[dependency]) problems.push(`${name}: depends on unknown ${dependency}`);
        const optional = service.depends_on?.[dependency]?.required === false;
        if (services[dependency]?.profiles && !optional) {
          problems.push(`${name}: depends on ${dependency} (profile only) without required: false`);
        }
      }
    }
    // Files the services read by default from the image (/app is the repository root).
    for (const [name, service] of Object.entries(services)) {
      for (const value of [...Object.values(service.environment ?? {}), ...commandOf(service)]) {
        const path = /^\$\{[A-Z_]+:-\/app\/([^}]+)\}$/.exec(String(value))?.[1];
        if (path && !existsSync(join(root, path))) problems.push(`${name}: default file ${path} missing`);
      }
    }
    const specProblem = composeConfigProblem();
    if (specProblem) problems.push(specProblem);
    expect(problems).toEqual([]);
  });

  it('documents every variable it reads in .env.example and keeps secrets out of the file', () => {
    const text = readFileSync(composeFile, 'utf8');
    const used = new Set([...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1] ?? ''));
    expect([...used].filter((name) => !exampleVariables.has(name))).toEqual([]);
    const literalSecrets: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        // A *_FILE or *_DIR value is where a secret lives (a compose secret, a volume), not a secret.
        if (/_(FILE|DIR)$/.test(key)) continue;
        if (/PASSWORD|TOKEN|SECRET/.test(key) && value !== null && !/^\$\{[A-Z_]+/.test(String(value))) {
          literalSecrets.push(`${name}.${key}`);
        }
      }
    }
    expect(literalSecrets).toEqual([]);
    // Required passwords fail loudly instead of defaulting to something guessable.
    expect(text).toContain('${CLICKHOUSE_PASSWORD:?');
    expect(text).toContain('${GRAFANA_ADMIN_PASSWORD:?');
  });

  it('runs callers’ queries as the read-only user that users.d defines, with the server’s password', () => {
    const usersFile = 'clickhouse/server/users.d/feedpipe-sql-reader.xml';
    const xml = read(`infra/${usersFile}`);
    const users = /<users>\s*<([a-z_][a-z0-9_]*)>([\s\S]*?)<\/\1>\s*<\/users>/.exec(xml);
    const [, userName, userBody = ''] = users ?? [];
    const passwordVar = /<password from_env="([A-Z0-9_]+)"\/>/.exec(userBody)?.[1];
    const profileName = /<profile>([a-z_]+)<\/profile>/.exec(userBody)?.[1] ?? '';
    const profile =
      new RegExp(`<profiles>\\s*<${profileName}>([\\s\\S]*?)</${profileName}>`).exec(xml)?.[1] ?? '';
    const env = new Map(exampleValues);
    const api = services['query-api']?.environment ?? {};
    const server = services.clickhouse;
    expect(api.CLICKHOUSE_SQL_USER).toBe(userName);
    expect(passwordVar).toBe('CLICKHOUSE_SQL_PASSWORD');
    const serverPassword = interpolate(String(server?.environment?.CLICKHOUSE_SQL_PASSWORD), env);
    expect(serverPassword).toBe(env.get('CLICKHOUSE_SQL_PASSWORD'));
    expect(interpolate(String(api.CLICKHOUSE_SQL_PASSWORD), env)).toBe(serverPassword);
    expect(server?.volumes).toContain(
      `./${usersFile}:/etc/clickhouse-server/users.d/feedpipe-sql-reader.xml:ro`,
    );
    // readonly = 2, pinned: what the API asks for as this user (packages/store: userReadonly).
    expect(profile).toMatch(/^\s*<readonly>2<\/readonly>/m);
    expect(profile).toMatch(/<constraints>[\s\S]*<readonly><const\/><\/readonly>/);
    const granted = [...userBody.matchAll(/GRANT SELECT ON (market\.[a-z0-9_]+)</g)].map((m) => m[1]);
    expect([...granted].sort()).toEqual([...MARKET_DATA_TABLES].sort());
    expect(userBody).not.toMatch(/GRANT (?!SELECT ON (market|system)\.)/);
  });

  it('gives analysts’ own tools a read-only user of the same reach, password from the server’s env', () => {
    const usersFile = 'clickhouse/server/users.d/feedpipe-analyst.xml';
    const xml = read(`infra/${usersFile}`);
    const reader = read('infra/clickhouse/server/users.d/feedpipe-sql-reader.xml');
    const user = /<users>\s*<analyst>([\s\S]*?)<\/analyst>\s*<\/users>/.exec(xml)?.[1] ?? '';
    const passwordVar = /<password from_env="([A-Z0-9_]+)"\/>/.exec(user)?.[1] ?? '';
    const profileName = /<profile>([a-z_]+)<\/profile>/.exec(user)?.[1] ?? '';
    // The profile is the pinned read-only one the other file defines (users.d files merge).
    expect(reader).toContain(`<profiles>\n        <${profileName}>`);
    const server = services.clickhouse;
    expect(String(server?.environment?.[passwordVar])).toMatch(new RegExp(`^\\$\\{${passwordVar}:\\?`));
    expect([...exampleValues.keys()]).toContain(passwordVar);
    expect(server?.volumes).toContain(
      `./${usersFile}:/etc/clickhouse-server/users.d/feedpipe-analyst.xml:ro`,
    );
    const granted = [...user.matchAll(/GRANT SELECT ON (market\.[a-z0-9_]+)</g)].map((m) => m[1]);
    expect([...granted].sort()).toEqual([...MARKET_DATA_TABLES].sort());
    expect(user).not.toMatch(/GRANT (?!SELECT ON (market|system)\.)/);
    expect(user).toMatch(/<access_management>0<\/access_management>/);
  });

  it('publishes ports on BIND_ADDRESS only (loopback unless chosen otherwise)', () => {
    const ports = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^\$\{BIND_ADDRESS:-127\.0\.0\.1\}:/);
  });

  it('is scraped by Prometheus at the port each service serves its metrics on', () => {
    const prometheus = parse(read('infra/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{
        job_name: string;
        dns_sd_configs?: Array<{ names: string[]; port: number }>;
        static_configs?: Array<{ targets: string[] }>;
      }>;
    };
    const metricsPort = (name: string): number => {
      const env = services[name]?.environment ?? {};
      const command = commandOf(services[name] ?? {});
      const flag = command.indexOf('--metrics-port');
      return Number(
        flag >= 0 ? command[flag + 1] : (env.METRICS_PORT ?? env.QUERY_API_PORT ?? env.TRADING_GATEWAY_PORT),
      );
    };
    const jobs = new Map(prometheus.scrape_configs.map((c) => [c.job_name, c]));
    // The feed ingestor runs twice (leader and standby): one job scrapes both.
    const replicas: Record<string, string[]> = { 'feed-ingestor': ['feed-ingestor', 'feed-ingestor-2'] };
    for (const name of ['feed-ingestor', 'sink', 'history-loader', 'query-api', 'trading-gateway']) {
      const sd = jobs.get(name)?.dns_sd_configs?.[0];
      expect(sd?.names, name).toEqual(replicas[name] ?? [name]);
      for (const replica of replicas[name] ?? [name]) expect(sd?.port, replica).toBe(metricsPort(replica));
      // Bound to loopback, the endpoint would be unreachable from the Prometheus container.
      const env = services[name]?.environment ?? {};
      const host = env.METRICS_HOST ?? env.QUERY_API_HOST ?? env.TRADING_GATEWAY_HOST;
      expect(host, name).toBe('0.0.0.0');
    }
    const mounted = (services.prometheus?.volumes ?? []).map((v) => v.split(':')[0]);
    expect(mounted).toEqual(
      expect.arrayContaining(['./prometheus/prometheus.yml', './prometheus/alerts.yml']),
    );
  });
});
