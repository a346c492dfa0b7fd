/**
 * The control topic as a channel: messages sent with a keyed JSON producer and read back by a
 * group-less tail (every process reads every message, in the partition's one order, its own
 * included). The tail begins a few messages before the end, so a process that starts (or restarts)
 * learns when the current leader last said it was alive; those earlier messages are marked as such
 * (a handover that began before this process started is not this process's to join).
 */
import { JsonProducer, KafkaAdmin, type PartitionBatch, TopicTail } from '@feedpipe/kafka-client';
import { type ControlMessage, parseControlMessage } from './control-messages.js';

export interface ControlChannelOptions {
  brokers: string[];
  topic: string;
  /** `earlier`: sent before this channel started (read back for context). */
  onMessage: (message: ControlMessage, earlier: boolean) => void;
  log: (message: string) => void;
}

/** Messages read back from before the start: the leader's latest `alive` is among them. */
const LOOK_BACK = 20;

export class ControlChannel {
  readonly #o: ControlChannelOptions;
  readonly #producer: JsonProducer;
  readonly #tail: TopicTail;
  /** The end of the partition when the channel started: records before it are `earlier`. */
  #startEnd = 0;

  constructor(options: ControlChannelOptions) {
    this.#o = options;
    this.#producer = new JsonProducer({ brokers: options.brokers, clientId: 'feedpipe-ingestor-control' });
    this.#tail = new TopicTail({
      brokers: options.brokers,
      clientId: 'feedpipe-ingestor-control',
      topics: [options.topic],
      maxWaitMs: 50,
      startAt: () => Math.max(0, this.#startEnd - LOOK_BACK),
      eachBatch: (batch: PartitionBatch) => {
        for (let i = 0; i < batch.count; i++) {
          const message = parseControlMessage(batch.value(i));
          if (message) options.onMessage(message, batch.offset(i) < this.#startEnd);
        }
      },
      onError: (error) => options.log(`control topic: ${error.message}`),
    });
  }

  async start(): Promise<void> {
    const admin = new KafkaAdmin({ brokers: this.#o.brokers, clientId: 'feedpipe-ingestor-control' });
    try {
      this.#startEnd = Number((await admin.topicOffsets(this.#o.topic))[0]?.high ?? 0n);
    } finally {
      await admin.close();
    }
    await this.#tail.start();
  }

  send(message: ControlMessage): Promise<void> {
    return this.#producer.send(this.#o.topic, [{ key: 'control', value: message }]);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#tail.stop(), this.#producer.close()]);
  }
}
