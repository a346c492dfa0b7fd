/**
 * A real, single-node Apache Kafka broker (KRaft: broker and controller in one JVM) on loopback,
 * started from the jars that `infra/kafka/pom.xml` resolves from Maven Central.
 *
 * Used by the vitest global setup and by `npm start` when `KAFKA_BROKERS` is unset. The JVM and its
 * life (no orphans: kafka-jvm.ts) are shared with the local cluster of several brokers
 * (local-kafka-cluster.ts, exported from here too).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  assertKafkaJars,
  formatStorage,
  freePort,
  jmxExporterAgent,
  jmxExporterOption,
  KafkaJvm,
  kafkaClusterId,
  LocalKafkaError,
  waitForClients,
} from './kafka-jvm.js';

export {
  freePort,
  JMX_EXPORTER_RULES,
  jmxExporterAgent,
  KAFKA_LIB_DIR,
  kafkaJarsPresent,
  LocalKafkaError,
  type LocalKafkaErrorCode,
} from './kafka-jvm.js';
export {
  type ClusterNode,
  type ClusterNodeState,
  type LocalKafkaCluster,
  type LocalKafkaClusterOptions,
  startLocalKafkaCluster,
} from './local-kafka-cluster.js';

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
  /**
   * Serve the broker's own metrics at http://127.0.0.1:<port>/metrics through the JMX exporter's
   * agent and compose's rules (jmx-exporter/kafka-broker.yml), so the dashboard's Kafka panels and
   * alerts read the same series as in compose. 0 picks a free port. Default: off. The agent must
   * be where `npm run setup` puts it (jmxExporterAgent), else KAFKA_JARS_MISSING.
   */
  metricsPort?: number;
}

export interface LocalKafka {
  readonly brokers: string[];
  /** The broker's metrics endpoint, when `metricsPort` was given. */
  readonly metricsUrl: string | undefined;
  readonly pid: number;
  stop(): Promise<void>;
  /** Stops the broker and starts it again on the same ports and data (an outage, for tests). */
  restart(): Promise<void>;
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
    // The ingestor's leadership group runs a 3 s session so a standby takes over within 5 s
    // (services/feed-ingestor/src/leader/); the broker's default floor is 6 s.
    'group.min.session.timeout.ms=1000',
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

export async function startLocalKafka(options: LocalKafkaOptions): Promise<LocalKafka> {
  assertKafkaJars();
  const dataDir = resolve(options.dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const controllerPort = await freePort();
  const propsFile = join(dataDir, 'server.properties');
  writeFileSync(propsFile, serverProperties(dataDir, port, controllerPort, options));
  formatStorage(propsFile, kafkaClusterId());

  const brokers = [`127.0.0.1:${port}`];
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  let metricsUrl: string | undefined;
  const jvmOptions: string[] = [];
  if (options.metricsPort !== undefined) {
    const agent = jmxExporterAgent();
    if (agent === undefined) {
      throw new LocalKafkaError(
        'KAFKA_JARS_MISSING',
        'the JMX exporter agent is missing under infra/kafka/.cache/jmx-exporter; run `npm run setup`',
      );
    }
    const metricsPort = options.metricsPort === 0 ? await freePort() : options.metricsPort;
    jvmOptions.push(jmxExporterOption(agent, metricsPort));
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  }
  const jvm = new KafkaJvm(dataDir, propsFile, options.heap ?? '512m', jvmOptions);

  async function launch(): Promise<void> {
    jvm.spawn();
    try {
      await waitForClients(brokers, () => jvm.exitCode(), timeoutMs);
    } catch (error) {
      await jvm.kill();
      throw error;
    }
  }

  await launch();
  let stopping: Promise<void> | undefined;
  return {
    brokers,
    metricsUrl,
    get pid() {
      return jvm.pid;
    },
    stop() {
      stopping ??= jvm.stop(6_000);
      return stopping;
    },
    async restart() {
      await jvm.stop(6_000);
      await launch();
      stopping = undefined;
    },
  };
}
