/**
 * Consumer health: whether the sink is storing, and every outage logged, counted and measured
 * rather than passing in silence. The consumer retries fetch, heartbeat and join failures by itself
 * (keeping its member id), so an outage is "an error reported" up to "records flow again" (or the
 * member is assigned partitions again).
 */
import type { KafkaClientError } from '@feedpipe/kafka-client';
import type { SinkMetrics } from './sink-metrics.js';

export class ConsumerHealth {
  #up = false;
  #downSince = 0;
  #joins = 0;
  #outages = 0;
  readonly #metrics: SinkMetrics;
  readonly #log: (message: string) => void;

  constructor(metrics: SinkMetrics, log: (message: string) => void) {
    this.#metrics = metrics;
    this.#log = log;
  }

  get up(): boolean {
    return this.#up;
  }

  /** Outages so far (SinkStats.consumerCrashes). */
  get outages(): number {
    return this.#outages;
  }

  /** An error of the consumer: the first of an outage is logged and counted, by its code. */
  failed(error: KafkaClientError): void {
    const retrying = error.retriable ? 'retrying' : 'stopped for good; restart the sink';
    if (!this.#up && this.#downSince !== 0) return;
    this.#up = false;
    this.#downSince = Date.now();
    this.#outages += 1;
    this.#metrics.consumerUp.set(0);
    this.#metrics.consumerCrashes.inc({ error: error.code });
    this.#log(
      `consumer down (${error.code}: ${error.message}; ${retrying}); nothing is stored until it is back`,
    );
  }

  /** The member got its partitions (again, after the first time: a rebalance or a lost session). */
  assigned(memberId: string): void {
    this.#joins += 1;
    if (this.#joins > 1) {
      this.#metrics.consumerRejoins.inc();
      this.#log(`consumer rejoined the group as ${memberId}`);
    }
    this.working();
  }

  /** Records flow (a batch was handed over) or the group answered: the consumer is up. */
  working(): void {
    if (this.#up) return;
    if (this.#downSince !== 0) {
      const outageMs = Date.now() - this.#downSince;
      this.#metrics.consumerOutageSeconds.observe(outageMs / 1000);
      this.#log(`consumer back (${outageMs} ms without storing)`);
    }
    this.#up = true;
    this.#downSince = 0;
    this.#metrics.consumerUp.set(1);
  }
}
