/**
 * Live-stream slots are shared out per API key: one key over its share gets 429 while other keys
 * still get in, and a revoked key's streams end at once. Against the run's real Kafka broker.
 */
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

const brokers = inject('kafkaBrokers');
const topics = {
  trades: uniqueName('share_trades'),
  ohlc: uniqueName('share_ohlc'),
  reference: uniqueName('share_ref'),
  status: uniqueName('share_status'),
};
let h: Harness;
const open: AbortController[] = [];

beforeAll(async () => {
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics(Object.values(topics));
  await admin.close();
  h = await startHarness(
    { topics, stream: { maxClients: 4, maxClientsPerKey: 2 } },
    { kafkaBrokers: brokers },
    false,
  );
  await h.api.start();
});

afterAll(async () => {
  for (const controller of open) controller.abort();
  await h?.close();
});

/** Opens a stream; a 200 is admitted (the hub counted it before the headers went out). */
async function stream(headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(`${h.api.url}/v1/stream?securityIds=1`, {
    headers,
    signal: controller.signal,
  });
  if (response.status === 200) open.push(controller);
  const body = response.status === 200 ? undefined : await response.json();
  return { status: response.status, response, controller, body };
}

/** Reads the stream's text until it ends (bounded): what a client saw before the server closed it. */
async function readToEnd(response: Response, timeoutMs: number): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now())),
    ]);
    if (chunk === null || chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text;
}

describe('live stream share per key', () => {
  it('gives one key at most its share, other keys still get in, and a revoked key is cut off', async () => {
    const a1 = await stream(h.read);
    const a2 = await stream(h.read);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const a3 = await stream(h.read);
    expect(a3.status).toBe(429);
    expect(a3.body.error.code).toBe('RATE_LIMITED');
    expect(a3.body.error.message).toContain('share of 2');

    // Another key is not crowded out by the first.
    const b1 = await stream(h.both);
    expect(b1.status).toBe(200);

    // Closing one of the first key's streams gives its slot back (once the server saw the close).
    a1.controller.abort();
    let reopened = 0;
    await waitFor(
      async () => {
        reopened = (await stream(h.read)).status;
        return reopened === 200;
      },
      30_000,
      'the freed slot',
      100,
    );
    expect(reopened).toBe(200);

    // Revoking the second key ends its open stream with an `end` event, and it cannot reopen.
    const adminKey = { 'x-api-key': (await h.api.keys.create('share-admin', ['admin'])).key };
    const listed = (await (await fetch(`${h.api.url}/v1/admin/keys`, { headers: adminKey })).json()) as {
      keys: Array<{ keyId: string; name: string }>;
    };
    const desk = listed.keys.find((k) => k.name === 'desk');
    expect(desk).toBeDefined();
    const ended = readToEnd(b1.response, 30_000);
    const revoke = await fetch(`${h.api.url}/v1/admin/keys/${desk?.keyId}`, {
      method: 'DELETE',
      headers: adminKey,
    });
    expect(revoke.status).toBe(200);
    const seen = await ended;
    expect(seen).toContain('event: ready');
    expect(seen).toContain('event: end');
    expect(seen).toContain('revoked');
    expect((await stream(h.both)).status).toBe(401);
  });
});
