/**
 * A real Apache Kafka cluster of N nodes on loopback (KRaft), for tests and benchmarks of what a
 * production cluster does to the pipeline: leaders moving, replicas falling out of sync and back,
 * a broker lost for good.
 *
 * Each node is one JVM with both roles (broker and controller): N = 3 gives three brokers and a
 * controller quorum of three voters, which survives the loss of any one node. Two JVMs per node
 * would double the memory for nothing a test can see. Every node can be driven on its own: SIGKILL,
 * SIGSTOP/SIGCONT (a hung broker: its sockets stay open, nothing answers), a controlled restart, or
 * removal (killed and its data deleted: lost for good).
 *
 * The settings relied on (docs/operations.md, "Kafka cluster"): replication factor min(3, N) for
 * every topic created with the broker's default (the services create theirs that way) and for the
 * group offsets; min.insync.replicas min(2, N); unclean leader election off; a broker that stops
 * heartbeating is fenced after 6 s, so its leaderships move within seconds of a crash or a hang.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KafkaAdmin, type PartitionState } from '@feedpipe/kafka-client';
import {
  assertKafkaJars,
  formatStorageAsync,
  freePort,
  KafkaJvm,
  kafkaClusterId,
  LocalKafkaError,
  waitForClients,
} from './kafka-jvm.js';

export interface LocalKafkaClusterOptions {
  /** Parent of the nodes' data directories (node-1, node-2, ...). Wiped on start. */
  dataDir: string;
  /** Nodes (each a broker and a controller). Default 3; 1..9. */
  nodes?: number;
  /** Maximum heap per JVM. Default 384m (three of them share a 2-core development machine). */
  heap?: string;
  /** Default partitions for topics created with the broker's default. Default 6. */
  partitions?: number;
  /** How long to wait for the cluster (or a restarted node) to serve. Default 120 s. */
  startTimeoutMs?: number;
  /** Log segment size. Default 1 GiB. */
  segmentBytes?: number;
  /** Bytes kept per partition replica (checked every 30 s). Default: no size bound. Set it on tmpfs. */
  retentionBytesPerPartition?: number;
}

export type ClusterNodeState = 'running' | 'paused' | 'down' | 'removed';

export interface ClusterNode {
  /** node.id (the broker id in metadata). */
  readonly id: number;
  /** host:port of its client listener. */
  readonly address: string;
  readonly pid: number;
  readonly state: ClusterNodeState;
  /** SIGKILL: a crash (no controlled shutdown; its leaderships move when it is fenced). */
  kill(): Promise<void>;
  /** SIGSTOP: a hung broker (connections stay open, nothing is answered). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** Starts a node that is down, on its ports and data; resolves once it serves clients. */
  start(): Promise<void>;
  /** Controlled shutdown (SIGTERM: leaderships move first), then start again. */
  restart(): Promise<void>;
  /** SIGKILL and its data deleted: lost for good (it cannot be started again). */
  remove(): Promise<void>;
}

export interface LocalKafkaCluster {
  /** Bootstrap list: every node's client listener. */
  readonly brokers: string[];
  readonly nodes: readonly ClusterNode[];
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
  node(id: number): ClusterNode;
  /** Leader, replicas and ISR of every partition of `topics`. */
  partitionStates(topics: readonly string[]): Promise<PartitionState[]>;
  /**
   * Resolves once every partition of `topics` has a leader and all its replicas that are not
   * removed in sync (a restarted node caught up). Bounded: KAFKA_START_TIMEOUT after `timeoutMs`.
   */
  waitForInSync(topics: readonly string[], timeoutMs: number): Promise<void>;
  /** Stops every node (controlled where possible). */
  stop(): Promise<void>;
}

interface NodePlan {
  id: number;
  port: number;
  controllerPort: number;
  dir: string;
}

function nodeProperties(
  node: NodePlan,
  voters: string,
  options: LocalKafkaClusterOptions,
  rf: number,
  minIsr: number,
): string {
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `controller.quorum.voters=${voters}`,
    `listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${join(node.dir, 'logs')}`,
    `num.partitions=${options.partitions ?? 6}`,
    'auto.create.topics.enable=true',
    // Replication: every topic created with the broker's default, and the internal ones.
    `default.replication.factor=${rf}`,
    `min.insync.replicas=${minIsr}`,
    'unclean.leader.election.enable=false',
    `offsets.topic.replication.factor=${rf}`,
    'offsets.topic.num.partitions=4',
    `transaction.state.log.replication.factor=${rf}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `share.coordinator.state.topic.replication.factor=${rf}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    'group.initial.rebalance.delay.ms=0',
    // The ingestor's leadership group runs a 3 s session (services/feed-ingestor/src/leader/).
    'group.min.session.timeout.ms=1000',
    // A crashed or hung broker is fenced (its leaderships and ISR places given up) after 6 s
    // without a heartbeat (Kafka's default is 9 s); a follower that stops fetching leaves the ISR
    // after 10 s (default 30 s), so acks=all waits that long at most for a hung follower.
    'broker.heartbeat.interval.ms=1000',
    'broker.session.timeout.ms=6000',
    'replica.lag.time.max.ms=10000',
    `log.segment.bytes=${options.segmentBytes ?? 1024 * 1024 * 1024}`,
    'log.retention.hours=24',
    `log.retention.bytes=${options.retentionBytesPerPartition ?? -1}`,
    'log.retention.check.interval.ms=30000',
    'message.max.bytes=16777216',
    'replica.fetch.max.bytes=16777216',
    // Three JVMs share two cores in development: few threads each.
    'num.network.threads=2',
    'num.io.threads=2',
    'num.replica.fetchers=1',
    'background.threads=2',
    '',
  ].join('\n');
}

class Node implements ClusterNode {
  readonly id: number;
  readonly address: string;
  #state: ClusterNodeState = 'down';
  readonly #jvm: KafkaJvm;
  readonly #dir: string;
  readonly #timeoutMs: number;

  constructor(plan: NodePlan, propsFile: string, heap: string, timeoutMs: number) {
    this.id = plan.id;
    this.address = `127.0.0.1:${plan.port}`;
    this.#dir = plan.dir;
    this.#jvm = new KafkaJvm(plan.dir, propsFile, heap);
    this.#timeoutMs = timeoutMs;
  }

  get pid(): number {
    return this.#jvm.pid;
  }

  get state(): ClusterNodeState {
    // A JVM that died by itself is down, whatever it was told last.
    if ((this.#state === 'running' || this.#state === 'paused') && !this.#jvm.alive) this.#state = 'down';
    return this.#state;
  }

  /** Spawns the JVM without waiting (the cluster's first start launches every node together). */
  spawn(): void {
    this.#require('down', 'start');
    this.#jvm.spawn();
    this.#state = 'running';
  }

  async ready(): Promise<void> {
    try {
      await waitForClients([this.address], () => this.#jvm.exitCode(), this.#timeoutMs);
    } catch (error) {
      await this.#jvm.kill();
      this.#state = 'down';
      throw error;
    }
  }

  async start(): Promise<void> {
    this.spawn();
    await this.ready();
  }

  async kill(): Promise<void> {
    if (this.state === 'removed') return;
    await this.#jvm.kill();
    this.#state = 'down';
  }

  pause(): void {
    this.#require('running', 'pause');
    this.#jvm.signal('SIGSTOP');
    this.#state = 'paused';
  }

  resume(): void {
    this.#require('paused', 'resume');
    this.#jvm.signal('SIGCONT');
    this.#state = 'running';
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async remove(): Promise<void> {
    await this.#jvm.kill();
    rmSync(this.#dir, { recursive: true, force: true });
    this.#state = 'removed';
  }

  async stop(): Promise<void> {
    if (this.state === 'removed') return;
    await this.#jvm.stop();
    this.#state = 'down';
  }

  #require(state: ClusterNodeState, action: string): void {
    const now = this.state;
    if (now !== state) {
      throw new LocalKafkaError('KAFKA_NODE_STATE', `node ${this.id} is ${now}: cannot ${action} it`);
    }
  }
}

export async function startLocalKafkaCluster(options: LocalKafkaClusterOptions): Promise<LocalKafkaCluster> {
  assertKafkaJars();
  const count = options.nodes ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 9) {
    throw new LocalKafkaError('KAFKA_START_FAILED', `cluster option "nodes" must be 1..9, got ${count}`);
  }
  const rf = Math.min(3, count);
  const minIsr = Math.min(2, rf);
  const root = resolve(options.dataDir);
  rmSync(root, { recursive: true, force: true });
  const plans: NodePlan[] = [];
  for (let id = 1; id <= count; id++) {
    plans.push({
      id,
      port: await freePort(),
      controllerPort: await freePort(),
      dir: join(root, `node-${id}`),
    });
  }
  const voters = plans.map((p) => `${p.id}@127.0.0.1:${p.controllerPort}`).join(',');
  const clusterId = kafkaClusterId();
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const nodes = await Promise.all(
    plans.map(async (plan) => {
      mkdirSync(plan.dir, { recursive: true });
      const propsFile = join(plan.dir, 'server.properties');
      writeFileSync(propsFile, nodeProperties(plan, voters, options, rf, minIsr));
      await formatStorageAsync(propsFile, clusterId);
      return new Node(plan, propsFile, options.heap ?? '384m', timeoutMs);
    }),
  );
  const brokers = nodes.map((n) => n.address);
  const admin = () => new KafkaAdmin({ brokers, clientId: 'local-kafka-cluster', requestTimeoutMs: 5_000 });

  // Together: no node serves before the controllers have a quorum.
  for (const node of nodes) node.spawn();
  try {
    await Promise.all(nodes.map((n) => n.ready()));
    await waitUntil(timeoutMs, 'every broker registered', async () => {
      const a = admin();
      try {
        return (await a.brokers()).length === count;
      } finally {
        await a.close();
      }
    });
  } catch (error) {
    await Promise.all(nodes.map((n) => n.kill()));
    throw error;
  }

  async function partitionStates(topics: readonly string[]): Promise<PartitionState[]> {
    const a = admin();
    try {
      return await a.partitionStates(topics);
    } finally {
      await a.close();
    }
  }

  return {
    brokers,
    nodes,
    replicationFactor: rf,
    minInsyncReplicas: minIsr,
    node(id) {
      const node = nodes.find((n) => n.id === id);
      if (!node) throw new LocalKafkaError('KAFKA_NODE_STATE', `no node ${id}`);
      return node;
    },
    partitionStates,
    async waitForInSync(topics, waitMs) {
      const removed = new Set(nodes.filter((n) => n.state === 'removed').map((n) => n.id));
      await waitUntil(waitMs, `every replica of ${topics.join(', ')} in sync`, async () => {
        const states = await partitionStates(topics);
        return (
          states.length > 0 &&
          states.every((p) => p.leader >= 0 && p.replicas.every((r) => removed.has(r) || p.isr.includes(r)))
        );
      });
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}

/** Polls `check` every 250 ms until true; errors count as false. Bounded by `timeoutMs`. */
async function waitUntil(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new LocalKafkaError('KAFKA_START_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}`, {
    cause: lastError,
  });
}
