/** Kafka for `npm start`: a cluster by URL (KAFKA_BROKERS), or the local broker under the data directory. */
import { join } from 'node:path';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { log } from './log.js';
import { onExit } from './stop-order.js';
import { ensureContractTopics } from './topics.js';

export interface KafkaPart {
  brokers: string[];
  /** What the banner says about it. */
  note: string;
}

/** Kafka with every topic of the contract in place (start/topics.ts), before any part starts. */
export async function startKafka(dataDir: string): Promise<KafkaPart> {
  const kafka = await kafkaPart(dataDir);
  const topics = await ensureContractTopics(kafka.brokers);
  log(`topics ready: ${topics.join(', ')}`);
  return kafka;
}

async function kafkaPart(dataDir: string): Promise<KafkaPart> {
  if (process.env.KAFKA_BROKERS) {
    return {
      brokers: process.env.KAFKA_BROKERS.split(',').map((b) => b.trim()),
      note: 'external (KAFKA_BROKERS)',
    };
  }
  log('starting the local Kafka broker...');
  const kafka = await startLocalKafka({ dataDir: join(dataDir, 'kafka') });
  onExit('kafka', () => kafka.stop());
  return { brokers: kafka.brokers, note: `local broker (log ${join(dataDir, 'kafka', 'kafka.log')})` };
}
