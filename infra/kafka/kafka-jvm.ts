/**
 * What every local Kafka process shares, single node or cluster member: the jars that
 * `infra/kafka/pom.xml` resolves from Maven Central, the JVM's arguments, formatting a node's
 * storage, and one broker JVM that can be started, signalled, stopped and started again.
 *
 * Every JVM runs under `setpriv --pdeathsig KILL`, so it dies with the Node process that started it
 * even when that process is killed without a chance to clean up: no orphan JVMs. `setpriv` execs
 * java, so the child's pid is the JVM's own (SIGKILL, SIGSTOP and SIGCONT reach the broker itself).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaAdmin } from '@feedpipe/kafka-client';

const KAFKA_DIR = dirname(fileURLToPath(import.meta.url));
export const KAFKA_LIB_DIR = join(KAFKA_DIR, '.cache', 'lib');
/** The rules compose's broker exports its JMX beans by (the series the dashboard and alerts name). */
export const JMX_EXPORTER_RULES = join(KAFKA_DIR, 'jmx-exporter', 'kafka-broker.yml');

/**
 * The Prometheus JMX exporter's Java agent at the version compose loads (its JMX_EXPORTER_VERSION
 * default), where `npm run setup` puts it; undefined when setup has not fetched it.
 */
export function jmxExporterAgent(): string | undefined {
  const compose = readFileSync(join(KAFKA_DIR, '..', 'docker-compose.yml'), 'utf8');
  const version = /\$\{JMX_EXPORTER_VERSION:-([0-9][0-9A-Za-z.-]*)\}/.exec(compose)?.[1];
  if (version === undefined) return undefined;
  const jar = join(KAFKA_DIR, '.cache', 'jmx-exporter', version, 'jmx_prometheus_javaagent.jar');
  return existsSync(jar) ? jar : undefined;
}

/** The JVM option that serves the broker's metrics as compose's broker does, bound to loopback. */
export function jmxExporterOption(agent: string, port: number): string {
  return `-javaagent:${agent}=127.0.0.1:${port}:${JMX_EXPORTER_RULES}`;
}

export type LocalKafkaErrorCode =
  | 'KAFKA_JARS_MISSING'
  | 'KAFKA_FORMAT_FAILED'
  | 'KAFKA_START_FAILED'
  | 'KAFKA_START_TIMEOUT'
  | 'KAFKA_NODE_STATE';

export class LocalKafkaError extends Error {
  readonly code: LocalKafkaErrorCode;
  constructor(code: LocalKafkaErrorCode, message: string, options?: { cause?: unknown }) {
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

export function kafkaClusterId(): string {
  // KRaft wants a 16-byte UUID in URL-safe base64 without padding.
  return randomBytes(16).toString('base64url');
}

export function kafkaJarsPresent(): boolean {
  return existsSync(KAFKA_LIB_DIR) && readdirSync(KAFKA_LIB_DIR).some((f) => f.startsWith('kafka_2.13-'));
}

export function assertKafkaJars(): void {
  if (!kafkaJarsPresent()) {
    throw new LocalKafkaError(
      'KAFKA_JARS_MISSING',
      `Kafka jars are missing under ${KAFKA_LIB_DIR}; run \`npm run setup\` (Maven resolves them).`,
    );
  }
}

function javaArgs(
  heap: string,
  mainClass: string,
  args: string[],
  options: readonly string[] = [],
): string[] {
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
    ...options,
    '-cp',
    `${KAFKA_LIB_DIR}/*`,
    mainClass,
    ...args,
  ];
}

function formatArgs(propsFile: string, clusterId: string): string[] {
  return javaArgs('256m', 'kafka.tools.StorageTool', [
    'format',
    `--cluster-id=${clusterId}`,
    '--config',
    propsFile,
  ]);
}

function formatFailed(status: number | null, output: string): LocalKafkaError {
  return new LocalKafkaError(
    'KAFKA_FORMAT_FAILED',
    `kafka storage format failed (${status}): ${output}`.slice(0, 2000),
  );
}

/** Formats a node's log directories for `clusterId` (KRaft needs this before the first start). */
export function formatStorage(propsFile: string, clusterId: string): void {
  const format = spawnSync('java', formatArgs(propsFile, clusterId), { encoding: 'utf8', timeout: 120_000 });
  if (format.status !== 0) throw formatFailed(format.status, format.stderr || format.stdout);
}

/** As formatStorage, without blocking: the nodes of a cluster are formatted side by side. Bounded: 120 s. */
export function formatStorageAsync(propsFile: string, clusterId: string): Promise<void> {
  return new Promise((resolveFormat, reject) => {
    const child = spawn('java', formatArgs(propsFile, clusterId), { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < 4_000) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(formatFailed(null, error.message));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolveFormat();
      else reject(formatFailed(code, output));
    });
  });
}

/**
 * Waits until a client gets the cluster's metadata from `brokers` (the first thing every client
 * asks for), failing at once when the JVM exits meanwhile. Bounded by `timeoutMs`.
 */
export async function waitForClients(
  brokers: readonly string[],
  exited: () => number | null,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const code = exited();
    if (code !== null) {
      throw new LocalKafkaError('KAFKA_START_FAILED', `Kafka exited with code ${code} during start`);
    }
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

/** One broker JVM on its data directory: started, signalled and stopped again as often as needed. */
export class KafkaJvm {
  readonly #dataDir: string;
  readonly #propsFile: string;
  readonly #heap: string;
  readonly #options: readonly string[];
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  /** @param options further JVM options (the JMX exporter's agent). */
  constructor(dataDir: string, propsFile: string, heap: string, options: readonly string[] = []) {
    this.#dataDir = dataDir;
    this.#propsFile = propsFile;
    this.#heap = heap;
    this.#options = options;
  }

  get pid(): number {
    return this.#child?.pid ?? -1;
  }

  /** Whether the JVM is alive (running or stopped by SIGSTOP). */
  get alive(): boolean {
    const child = this.#child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** The exit code once the JVM exited (null while it lives; -1 when a signal ended it). */
  exitCode(): number | null {
    const child = this.#child;
    if (!child) return -1;
    if (child.exitCode !== null) return child.exitCode;
    return child.signalCode !== null ? -1 : null;
  }

  /** Spawns the JVM (not waiting for it to serve: see waitForClients). */
  spawn(): void {
    if (this.alive) throw new LocalKafkaError('KAFKA_NODE_STATE', 'this Kafka JVM is already running');
    const logFd = openSync(join(this.#dataDir, 'kafka.log'), 'a');
    // Its own process group: a terminal's Ctrl-C reaches the Node process only, which stops the broker
    // last, after the producers drained into it. pdeathsig still kills it if Node dies first.
    const child = spawn(
      'setpriv',
      [
        '--pdeathsig',
        'KILL',
        'java',
        // GC pauses beside the broker's own log: the first thing to check when produce latency spikes.
        `-Xlog:gc:file=${join(this.#dataDir, 'gc.log')}:uptime`,
        ...javaArgs(this.#heap, 'kafka.Kafka', [this.#propsFile], this.#options),
      ],
      { stdio: ['ignore', logFd, logFd], detached: true },
    );
    closeSync(logFd);
    this.#child = child;
    this.#exited = new Promise<void>((r) => child.once('exit', () => r()));
  }

  /** Sends `signal` to the JVM (no-op when it is not alive). */
  signal(signal: NodeJS.Signals): void {
    if (this.alive) this.#child?.kill(signal);
  }

  /** SIGKILL, and waits for the exit. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    this.#child?.kill('SIGKILL');
    await this.#exited;
  }

  /**
   * SIGTERM (Kafka's controlled shutdown: leaderships move away first), SIGKILL after `graceMs`.
   * A stopped (SIGSTOP) JVM is continued first, else it could not act on the SIGTERM.
   */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.alive) return;
    this.#child?.kill('SIGCONT');
    this.#child?.kill('SIGTERM');
    const killTimer = setTimeout(() => this.#child?.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(killTimer);
  }
}
