/**
 * A quote request counted from its send is marked again when Node's fetch writes it to its socket
 * (core/socket-write.ts), against a real HTTP server on loopback: the first request of a client
 * opens its connection, so it is written after the mark made before fetch, and the limiter's slot
 * follows it. A fetch that is not undici publishes nothing: the mark before fetch stands alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrokerClient, type RateCategory, sharedQuoteLimiter, type WrittenOn } from '../src/index.js';
import { sendJson, startServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res) => sendJson(res, 200, { data: {}, status: 'success' }));
});
afterAll(async () => {
  await server.close();
});

function clientWith(fetch?: typeof globalThis.fetch): {
  client: BrokerClient;
  marks: number[];
  connections: (WrittenOn | undefined)[];
} {
  const limiter = sharedQuoteLimiter(8);
  const marks: number[] = [];
  const connections: (WrittenOn | undefined)[] = [];
  const markSent = limiter.markSent.bind(limiter);
  limiter.markSent = (category: RateCategory, time: number, connection?: WrittenOn) => {
    if (category === 'quote') {
      marks.push(time);
      connections.push(connection);
    }
    markSent(category, time, connection);
  };
  const client = new BrokerClient({
    baseUrl: server.url,
    clientId: '1000000001',
    accessToken: 'token',
    rateLimiter: limiter,
    ...(fetch === undefined ? {} : { fetch }),
  });
  return { client, marks, connections };
}

describe('a send marked when the request reaches its socket', () => {
  it('marks each quote request again as fetch writes it, no earlier than the mark before fetch', async () => {
    const { client, marks, connections } = clientWith();
    await client.marketData.quote({ NSE_EQ: [1] });
    await client.marketData.quote({ NSE_EQ: [2] });
    expect(server.requests).toHaveLength(2);
    // Per request: the mark before fetch, then the one at the socket write.
    expect(marks).toHaveLength(4);
    expect(marks[1]).toBeGreaterThanOrEqual(marks[0] as number);
    expect(marks[3]).toBeGreaterThanOrEqual(marks[2] as number);
    // The first opened the connection; the second went on it, kept alive.
    expect(connections).toEqual([undefined, 'fresh', undefined, 'reused']);
  });

  it('keeps the mark before fetch alone when the fetch is not undici', async () => {
    const { client, marks } = clientWith(
      async () => new Response(JSON.stringify({ data: {}, status: 'success' })),
    );
    await client.marketData.quote({ NSE_EQ: [3] });
    expect(marks).toHaveLength(1);
  });
});
