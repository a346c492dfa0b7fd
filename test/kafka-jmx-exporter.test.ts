/**
 * Kafka's own metrics as the compose deployment scrapes them: a local broker (the same Kafka jars
 * as every test's broker) runs with the Prometheus JMX exporter's Java agent, at the version the
 * compose file fetches (scripts/setup.mjs resolves it from Maven Central), and the rules file compose
 * mounts (infra/kafka/jmx-exporter/kafka-broker.yml). Its /metrics must carry every Kafka series the
 * alerts and the Grafana dashboard name and every name the rules define, with the values a healthy
 * broker has. Loopback only;
 * the broker is killed at the end (and dies with this process: setpriv --pdeathsig).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, KAFKA_LIB_DIR } from '@feedpipe/local-kafka';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { metricNamesOf } from './infra-promql.js';

const root = join(import.meta.dirname, '..');
const RULES = join(root, 'infra/kafka/jmx-exporter/kafka-broker.yml');
const compose = readFileSync(join(root, 'infra/docker-compose.yml'), 'utf8');
const version = /\$\{JMX_EXPORTER_VERSION:-([^}]+)\}/.exec(compose)?.[1] ?? '';
const agent = join(root, 'infra/kafka/.cache/jmx-exporter', version, 'jmx_prometheus_javaagent.jar');
const scratch = tempDir('kafka-jmx');
/** A healthy single broker, once started: one active controller, nothing offline or under-replicated. */
const HEALTHY: Record<string, number> = {
  kafka_controller_activecontrollercount: 1,
  kafka_controller_offlinepartitionscount: 0,
  kafka_log_manager_offline_log_directory_count: 0,
  kafka_server_replica_manager_underreplicatedpartitions: 0,
};
let broker: ChildProcess | undefined;

afterAll(async () => {
  if (broker && broker.exitCode === null && broker.signalCode === null) {
    const exited = new Promise<void>((resolve) => broker?.once('exit', () => resolve()));
    broker.kill('SIGKILL');
    await exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

function serverProperties(port: number, controllerPort: number): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${join(scratch, 'logs')}`,
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    '',
  ].join('\n');
}

/** `name value` of the exposition text, comments skipped. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)/.exec(line);
    if (match) out.set(match[1] ?? '', Number(match[2]));
  }
  return out;
}

describe('Kafka through the JMX exporter agent and the shipped rules', () => {
  it('exports the series the alerts and the rules name, with a healthy broker’s values', async () => {
    expect(version).toMatch(/^\d+\.\d+/);
    expect(existsSync(agent), `${agent} is missing: run \`npm run setup\``).toBe(true);
    const [port, controllerPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    mkdirSync(scratch, { recursive: true });
    const props = join(scratch, 'server.properties');
    writeFileSync(props, serverProperties(port, controllerPort));
    const classpath = `${KAFKA_LIB_DIR}/*`;
    const format = spawnSync(
      'java',
      [
        '-cp',
        classpath,
        'kafka.tools.StorageTool',
        'format',
        '--cluster-id=N5X4Gf8c0B7lcqIhnU7iZQ',
        '--config',
        props,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(format.status, format.stderr).toBe(0);
    let output = '';
    broker = spawn(
      'setpriv',
      [
        '--pdeathsig',
        'KILL',
        'java',
        '-Xmx384m',
        // As compose's KAFKA_OPTS, bound to loopback here: [host:]port:rules.
        `-javaagent:${agent}=127.0.0.1:${metricsPort}:${RULES}`,
        `-Dlog4j2.configurationFile=${join(root, 'infra/kafka/log4j2.properties')}`,
        '-cp',
        classpath,
        'kafka.Kafka',
        props,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-6_000);
    };
    broker.stdout?.on('data', keep);
    broker.stderr?.on('data', keep);

    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    const rules = parse(readFileSync(RULES, 'utf8')) as { rules: Array<{ name: string }> };
    // Every fixed name the rules define (the per-topic-partition ones come with topics).
    const fixed = rules.rules.map((r) => r.name).filter((name) => !name.includes('$'));
    let text = '';
    // The beans register while the broker starts: wait until they all are there, with a healthy
    // broker's values.
    await waitFor(
      async () => {
        text = await fetch(url).then(
          (r) => r.text(),
          () => '',
        );
        const now = samples(text);
        const seen = new Set([...now.keys()].map((key) => key.replace(/\{.*$/, '')));
        return (
          Object.entries(HEALTHY).every(([name, value]) => now.get(name) === value) &&
          fixed.every((name) => seen.has(name))
        );
      },
      90_000,
      () =>
        `the broker's metrics on ${url} (${fixed.join(', ')}); kafka_ series seen:\n${text
          .split('\n')
          .filter((line) => line.startsWith('kafka_'))
          .join('\n')}\n${output}`,
      500,
    );
    const exported = samples(text);
    const names = new Set([...exported.keys()].map((key) => key.replace(/\{.*$/, '')));

    // Every Kafka series an alert selects.
    const alerts = parse(readFileSync(join(root, 'infra/prometheus/alerts.yml'), 'utf8')) as {
      groups: Array<{ rules: Array<{ expr: string }> }>;
    };
    const used = alerts.groups
      .flatMap((g) => g.rules)
      .flatMap((rule) => metricNamesOf(rule.expr))
      .filter((name) => name.startsWith('kafka_'));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((name) => !names.has(name))).toEqual([]);
    // And every Kafka series the Grafana dashboard queries.
    const dashboard = readFileSync(join(root, 'infra/grafana/dashboards/feedpipe.json'), 'utf8');
    const charted = [...dashboard.matchAll(/"expr": "((?:[^"\\]|\\.)*)"/g)]
      .flatMap((m) => metricNamesOf(JSON.parse(`"${m[1] ?? ''}"`) as string))
      .filter((name) => name.startsWith('kafka_'));
    expect(charted.length).toBeGreaterThan(0);
    expect(charted.filter((name) => !names.has(name))).toEqual([]);
    expect(fixed.filter((name) => !names.has(name))).toEqual([]);
    // Nothing else exported from JMX under kafka_ than what the rules name (the whitelist keeps it
    // small).
    const prefixes = rules.rules.map((r) => r.name.replace(/\$1.*$/, '').toLowerCase());
    const stray = [...names].filter((n) => n.startsWith('kafka_') && !prefixes.some((p) => n.startsWith(p)));
    expect(stray).toEqual([]);
  }, 180_000);
});
