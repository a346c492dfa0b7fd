/**
 * A real, single-node Apache Kafka broker (KRaft: broker and controller in one JVM) on loopback,
 * started from the jars that `infra/kafka/pom.xml` resolves from Maven Central.
 *
 * Used by the vitest global setup and by `npm start` when `KAFKA_BROKERS` is unset. The JVM runs
 * under `setpriv --pdeathsig KILL`, so it dies with the Node process that started it even when that
 * process is killed without a chance to clean up: no orphan JVMs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaAdmin } from '@feedpipe/kafka-client';

const KAFKA_DIR = dirname(fileURLToPath(import.meta.url));
export const KAFKA_LIB_DIR = join(KAFKA_DIR, '.cache', 'lib');

export interface LocalKafkaOptions {
  /** Where the broker keeps its log segments and its own log file. Wiped on start. */
  dataDir: string;
  /** Maximum JVM heap. Default 512m: enough for tests and the demo, bounded on a 2-core machine. */
  heap?: string;
  /** Default partitions for auto-created topics. Default 6. */
  partitions?: number;
  /** How long to wait for the broker to accept clients. Default 60 s. */
  startTimeoutMs?: number;
  /** Log segment size. Default 1 GiB (Kafka's own default). */
  segmentBytes?: number;
  /**
   * Bytes kept per partition before the oldest segments are deleted (checked every 30 s). Default:
   * no size bound (24 h of time retention). Set it when `dataDir` is in memory (tmpfs).
   */
  retentionBytesPerPartition?: number;
}

export interface LocalKafka {
  readonly brokers: string[];
  readonly pid: number;
  stop(): Promise<void>;
  /** Stops the broker and starts it again on the same ports and data (an outage, for tests). */
  restart(): Promise<void>;
}

export class LocalKafkaError extends Error {
  readonly code: 'KAFKA_JARS_MISSING' | 'KAFKA_FORMAT_FAILED' | 'KAFKA_START_FAILED' | 'KAFKA_START_TIMEOUT';
  constructor(code: LocalKafkaError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalKafkaError';
    this.code = code;
  }
}

/** A port that was free a moment ago; the broker binds it right after. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function kafkaClusterId(): string {
  // KRaft wants a 16-byte UUID in URL-safe base64 without padding.
  return randomBytes(16).toString('base64url');
}

function javaArgs(heap: string, mainClass: string, args: string[]): string[] {
  return [
    // The whole heap committed and touched up front, as Kafka's own start script sizes it (-Xms =
    // -Xmx): the broker's memory is then flat from the start instead of creeping up as G1 first
    // touches regions, which a soak would read as growth.
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+AlwaysPreTouch',
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:G1HeapRegionSize=16m',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(KAFKA_DIR, 'log4j2.properties')}`,
    '-cp',
    `${KAFKA_LIB_DIR}/*`,
    mainClass,
    ...args,
  ];
}

function serverProperties(
  dataDir: string,
  port: number,
  controllerPort: number,
  options: LocalKafkaOptions,
): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${join(dataDir, 'logs')}`,
    `num.partitions=${options.partitions ?? 6}`,
    'auto.create.topics.enable=true',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    // A single node: fsync policy stays the OS default.
    `log.segment.bytes=${options.segmentBytes ?? 1024 * 1024 * 1024}`,
    'log.retention.hours=24',
    `log.retention.bytes=${options.retentionBytesPerPartition ?? -1}`,
    'log.retention.check.interval.ms=30000',
    'message.max.bytes=16777216',
    'replica.fetch.max.bytes=16777216',
    'num.network.threads=2',
    'num.io.threads=4',
    '',
  ].join('\n');
}

export function kafkaJarsPresent(): boolean {
  return existsSync(KAFKA_LIB_DIR) && readdirSync(KAFKA_LIB_DIR).some((f) => f.startsWith('kafka_2.13-'));
}

async function waitForClients(brokers: string[], child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new LocalKafkaError(
        'KAFKA_START_FAILED',
        `Kafka exited with code ${child.exitCode} during start`,
      );
    }
    // Ready when a client gets the cluster's metadata, the first thing every client asks for.
    const admin = new KafkaAdmin({ brokers, clientId: 'local-kafka-probe', requestTimeoutMs: 2_000 });
    try {
      await admin.clusterId();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await admin.close();
    }
  }
  throw new LocalKafkaError('KAFKA_START_TIMEOUT', `Kafka did not accept clients within ${timeoutMs} ms`, {
    cause: lastError,
  });
}

export async function startLocalKafka(options: LocalKafkaOptions): Promise<LocalKafka> {
  if (!kafkaJarsPresent()) {
    throw new LocalKafkaError(
      'KAFKA_JARS_MISSING',
      `Kafka jars are missing under ${KAFKA_LIB_DIR}; run \`npm run setup\` (Maven resolves them).`,
    );
  }
  const dataDir = resolve(options.dataDir);
  const heap = options.heap ?? '512m';
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const controllerPort = await freePort();
  const propsFile = join(dataDir, 'server.properties');
  writeFileSync(propsFile, serverProperties(dataDir, port, controllerPort, options));

  const format = spawnSync(
    'java',
    javaArgs('256m', 'kafka.tools.StorageTool', [
      'format',
      `--cluster-id=${kafkaClusterId()}`,
      '--config',
      propsFile,
    ]),
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (format.status !== 0) {
    throw new LocalKafkaError(
      'KAFKA_FORMAT_FAILED',
      `kafka storage format failed (${format.status}): ${format.stderr || format.stdout}`.slice(0, 2000),
    );
  }

  const brokers = [`127.0.0.1:${port}`];
  const timeoutMs = options.startTimeoutMs ?? 60_000;

  async function launch(): Promise<{ child: ChildProcess; exited: Promise<void> }> {
    const logFd = openSync(join(dataDir, 'kafka.log'), 'a');
    // Its own process group: a terminal's Ctrl-C reaches the Node process only, which stops the broker
    // last, after the producers drained into it. pdeathsig still kills it if Node dies first.
    const child = spawn(
      'setpriv',
      [
        '--pdeathsig',
        'KILL',
        'java',
        // GC pauses beside the broker's own log: the first thing to check when produce latency spikes.
        `-Xlog:gc:file=${join(dataDir, 'gc.log')}:uptime`,
        ...javaArgs(heap, 'kafka.Kafka', [propsFile]),
      ],
      {
        stdio: ['ignore', logFd, logFd],
        detached: true,
      },
    );
    closeSync(logFd);
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await waitForClients(brokers, child, timeoutMs);
    } catch (error) {
      child.kill('SIGKILL');
      await exited;
      throw error;
    }
    return { child, exited };
  }

  let current = await launch();
  let stopping: Promise<void> | undefined;

  async function stopCurrent(): Promise<void> {
    const { child, exited } = current;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 6_000);
    await exited;
    clearTimeout(killTimer);
  }

  return {
    brokers,
    get pid() {
      return current.child.pid ?? -1;
    },
    stop() {
      stopping ??= stopCurrent();
      return stopping;
    },
    async restart() {
      await stopCurrent();
      current = await launch();
      stopping = undefined;
    },
  };
}
