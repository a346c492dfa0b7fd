/**
 * Starts one real Kafka broker for the whole test run (unless KAFKA_BROKERS points at one) and
 * stops it afterwards. Tests read the address with `inject('kafkaBrokers')` and use unique topic
 * names, so they never see each other's data.
 */
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import '@feedpipe/testkit';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';

let kafka: LocalKafka | undefined;

export async function setup(project: TestProject): Promise<void> {
  const external = process.env.KAFKA_BROKERS;
  if (process.env.FEEDPIPE_TEST_KAFKA === 'off') {
    // For focused runs of tests that need no broker; a test that injects the brokers then fails loudly.
    project.provide('kafkaBrokers', []);
    return;
  }
  if (external) {
    project.provide(
      'kafkaBrokers',
      external.split(',').map((b) => b.trim()),
    );
    return;
  }
  kafka = await startLocalKafka({
    dataDir: join(process.cwd(), '.tmp', `kafka-test-${process.pid}`),
    heap: '768m',
  });
  project.provide('kafkaBrokers', kafka.brokers);
}

export async function teardown(): Promise<void> {
  await kafka?.stop();
}
