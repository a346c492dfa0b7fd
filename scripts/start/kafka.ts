/** Kafka for `npm start`: a cluster by URL (KAFKA_BROKERS), or the local broker under the data directory. */
import { join } from 'node:path';
import { jmxExporterAgent, startLocalKafka } from '@feedpipe/local-kafka';
import { log } from './log.js';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';
import { ensureContractTopics } from './topics.js';

export interface KafkaPart {
  brokers: string[];
  /** What the banner says about it. */
  note: string;
  /** The local broker's own metrics (the JMX exporter, as in compose), when it runs one. */
  metricsUrl: string | undefined;
}

/** Kafka with every topic of the contract in place (start/topics.ts), before any part starts. */
export async function startKafka(dataDir: string, env: StartEnv): Promise<KafkaPart> {
  const kafka = await kafkaPart(dataDir, env);
  const topics = await ensureContractTopics(kafka.brokers);
  log(`topics ready: ${topics.join(', ')}`);
  return kafka;
}

async function kafkaPart(dataDir: string, env: StartEnv): Promise<KafkaPart> {
  if (env.KAFKA_BROKERS !== undefined && env.KAFKA_BROKERS.length > 0) {
    return {
      brokers: env.KAFKA_BROKERS,
      note: 'external (KAFKA_BROKERS)',
      metricsUrl: undefined,
    };
  }
  log('starting the local Kafka broker...');
  // The broker's own metrics as compose exports them, so the dashboard's Kafka panels have data
  // here too; without the agent (setup not run) the broker runs without them.
  const withMetrics = jmxExporterAgent() !== undefined;
  if (!withMetrics)
    log('no JMX exporter agent (npm run setup fetches it): the broker runs without its metrics');
  const kafka = await startLocalKafka({
    dataDir: join(dataDir, 'kafka'),
    ...(withMetrics ? { metricsPort: env.KAFKA_METRICS_PORT } : {}),
  });
  onExit('kafka', () => kafka.stop());
  return {
    brokers: kafka.brokers,
    note: `local broker (log ${join(dataDir, 'kafka', 'kafka.log')})`,
    metricsUrl: kafka.metricsUrl,
  };
}
