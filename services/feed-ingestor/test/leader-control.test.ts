/**
 * The control channel of the ingestor processes against the real broker: every process reads every
 * message, its own included, in the one order of the topic's partition; what is not a control
 * message is skipped.
 */
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ControlChannel } from '../src/leader/control-channel.js';
import { type ControlMessage, parseControlMessage } from '../src/leader/control-messages.js';

const brokers = inject('kafkaBrokers');
const channels: ControlChannel[] = [];
afterEach(async () => {
  for (const channel of channels.splice(0)) await channel.close();
});

describe('control channel', () => {
  it('hands every message to every reader in the order of the partition, and the last few from before', async () => {
    const topic = uniqueName('control');
    const admin = new KafkaAdmin({ brokers });
    await admin.ensureTopics([topic], { partitions: 1 });
    await admin.close();
    const early = new JsonProducer({ brokers });
    await early.send(topic, [{ key: 'control', value: { type: 'alive', member: 'z', run: 1, atMs: 5 } }]);
    await early.close();
    const seen: ControlMessage[][] = [[], []];
    const earlier: boolean[] = [];
    for (const list of seen) {
      const channel = new ControlChannel({
        brokers,
        topic,
        onMessage: (m, wasEarlier) => {
          if (wasEarlier) earlier.push(true);
          else list.push(m);
        },
        log: () => undefined,
      });
      channels.push(channel);
      await channel.start();
    }
    const [first] = channels as [ControlChannel];
    await first.send({ type: 'handover-claim', id: 'h1', by: 'b' });
    const stranger = new JsonProducer({ brokers });
    await stranger.send(topic, [{ key: 'control', value: { type: 'something-else' } }]);
    await stranger.close();
    await first.send({ type: 'alive', member: 'a', run: 7, atMs: 1 });
    await waitFor(() => seen.every((list) => list.length === 2), 20_000, 'both messages, twice');
    for (const list of seen) expect(list.map((m) => m.type)).toEqual(['handover-claim', 'alive']);
    // The message sent before the channels started is read back, marked as earlier, by both.
    expect(earlier).toEqual([true, true]);
  }, 60_000);

  it('reads only messages of known types', () => {
    expect(parseControlMessage(Buffer.from('{"type":"alive","member":"a","run":1,"atMs":2}'))?.type).toBe(
      'alive',
    );
    expect(parseControlMessage(Buffer.from('{"type":"nope"}'))).toBeUndefined();
    expect(parseControlMessage(Buffer.from('not json'))).toBeUndefined();
    expect(parseControlMessage(undefined)).toBeUndefined();
  });
});
