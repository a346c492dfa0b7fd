/** Shared setup of the postback tests: a receiver app on loopback, reading a topic, reading SSE. */
import { tempDir } from '@feedpipe/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  type PostbackReceiver,
  type PostbackReceiverOptions,
  postbackRoutes,
} from '../src/postbacks/index.js';

export const SECRET = 'test-postback-secret-0123456789';

export interface ReceiverApp {
  app: FastifyInstance;
  receiver: PostbackReceiver;
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startReceiverApp(
  options: Omit<PostbackReceiverOptions, 'secret' | 'walDir'> & { secret?: string; walDir?: string },
  port = 0,
): Promise<ReceiverApp> {
  const app = Fastify({ logger: false });
  const receiver = await postbackRoutes(app, {
    secret: SECRET,
    flushIntervalMs: 5,
    walDir: tempDir('postback-wal'),
    ...options,
  });
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { app, receiver, baseUrl: `http://127.0.0.1:${bound}`, port: bound, close: () => app.close() };
}

/**
 * Opens an SSE stream (with `headers`, e.g. an API key) and collects `order` events' data until
 * `count` arrived (bounded in time).
 */
export function collectSse(
  url: string,
  count: number,
  timeoutMs = 10_000,
  headers: Record<string, string> = {},
) {
  const abort = new AbortController();
  const events: Array<Record<string, unknown>> = [];
  let opened: () => void = () => {};
  const open = new Promise<void>((r) => {
    opened = r;
  });
  const done = (async () => {
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const res = await fetch(url, { headers, signal: abort.signal });
      if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
      opened();
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice(6)));
          cut = buffer.indexOf('\n\n');
        }
        if (events.length >= count) break;
      }
    } catch (error) {
      // The time bound ends the stream: whatever arrived until then is the answer.
      if (!abort.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    return events;
  })();
  return { open, done, events };
}
