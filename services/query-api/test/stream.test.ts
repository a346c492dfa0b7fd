/** The live stream against the run's real Kafka broker, with topics of this test only. */
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';
import { uniqueName } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

const brokers = inject('kafkaBrokers');
const topics = {
  trades: uniqueName('qa_trades'),
  ohlc: uniqueName('qa_ohlc'),
  reference: uniqueName('qa_ref'),
  status: uniqueName('qa_status'),
};
let h: Harness;
let url: string;

beforeAll(async () => {
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics(Object.values(topics), { partitions: 2 });
  await admin.close();
  h = await startHarness({ topics }, { kafkaBrokers: brokers }, false);
  url = await h.api.start();
});
afterAll(async () => {
  await h?.close();
});

interface SseEvent {
  event: string;
  data: string;
}

/** Reads SSE events until `stop` says enough (bounded by the caller's timeout via the abort). */
async function readEvents(
  response: Response,
  stop: (events: SseEvent[]) => boolean,
  timeoutMs: number,
): Promise<SseEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  const deadline = Date.now() + timeoutMs;
  // One read stays pending across timeouts: dropping it would lose the chunk it resolves with.
  let pending: ReturnType<typeof reader.read> | undefined;
  while (!stop(events) && Date.now() < deadline) {
    pending ??= reader.read();
    const chunk = await Promise.race([pending, new Promise<null>((r) => setTimeout(() => r(null), 500))]);
    if (chunk !== null) pending = undefined;
    if (chunk === null) continue;
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data !== undefined) events.push({ event, data });
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /v1/stream', () => {
  it('streams trades of the chosen instruments only, from Kafka', async () => {
    const controller = new AbortController();
    const response = await fetch(`${url}/v1/stream?securityIds=11,12&kinds=trades,status`, {
      headers: h.read,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const producer = new JsonProducer({ brokers });
    const record = (id: number, n: number) => ({
      key: String(id),
      value: {
        type: 'trade',
        segment: 14,
        securityId: id,
        ltp: 100 + n,
        volume: n,
        ltt: 1,
        lut: 1,
        receivedAt: n,
      },
    });
    let sent: Promise<void> | undefined;
    const produce = setTimeout(() => {
      sent = (async () => {
        await producer.send(topics.trades, [record(11, 1), record(99, 2), record(12, 3), record(11, 4)]);
        await producer.send(topics.status, [{ key: '0', value: { type: 'market_status', status: 2 } }]);
      })();
    }, 1_000);
    const events = await readEvents(
      response,
      (e) => e.filter((x) => x.event !== 'ready').length >= 4,
      30_000,
    );
    clearTimeout(produce);
    // The stream can show the status record before the producer has its acknowledgement: wait for
    // the sends before closing the producer, so a close never cuts a send short.
    await sent;
    controller.abort();
    await producer.close();
    expect(events[0]?.event).toBe('ready');
    const trades = events
      .filter((e) => e.event === 'trades')
      .map((e) => JSON.parse(e.data) as { securityId: number; ltp: number });
    expect(trades.map((t) => t.ltp).sort()).toEqual([101, 103, 104]);
    expect(trades.every((t) => t.securityId !== 99)).toBe(true);
    expect(events.some((e) => e.event === 'status')).toBe(true);
  });

  it('400 naming the field, 401 without a key', async () => {
    const bad = await h.api.app.inject({ method: 'GET', url: '/v1/stream?securityIds=a,b', headers: h.read });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('securityIds');
    const kinds = await h.api.app.inject({
      method: 'GET',
      url: '/v1/stream?securityIds=1&kinds=quotes',
      headers: h.read,
    });
    expect(kinds.json().error.field).toBe('kinds');
    expect((await h.api.app.inject({ method: 'GET', url: '/v1/stream?securityIds=1' })).statusCode).toBe(401);
    expect(
      (await h.api.app.inject({ method: 'GET', url: '/v1/stream?securityIds=1', headers: h.admin }))
        .statusCode,
    ).toBe(403);
  });
});
