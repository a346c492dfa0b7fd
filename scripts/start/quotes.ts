/**
 * The quote poller of `npm start`: full quotes with depth of the Indian instruments in
 * QUOTES_FILE (default: a few NSE and BSE stocks of the simulator), published on
 * feed.quotes and stored in market.quotes. The account's one quote budget (1 request/s) is shared
 * with the trading gateway's own quote calls through one limiter, handed to both (startQuotePoller
 * returns it for the gateway's client).
 */
import { isAbsolute, resolve } from 'node:path';
import { type RateLimiter, sharedQuoteLimiter } from '@feedpipe/broker-api';
import type { Credentials } from '@feedpipe/credentials';
import {
  createQuotePollerMetrics,
  QuotePoller,
  quoteClient,
  readQuoteInstruments,
} from '@feedpipe/history-loader';
import { JsonProducer } from '@feedpipe/kafka-client';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { log } from './log.js';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';

export interface QuoteInputs {
  env: StartEnv;
  baseUrl: string | undefined;
  clientId: string;
  tokens: Credentials;
  brokers: string[];
  store: Store;
  registry: Registry;
  repoRoot: string;
}

/** The account's limiter (for the gateway's client too), or undefined without a REST service. */
export function startQuotePoller(inputs: QuoteInputs): RateLimiter | undefined {
  if (inputs.baseUrl === undefined) return undefined;
  const limiter = sharedQuoteLimiter();
  if (inputs.env.QUOTE_POLLER === 'off') return limiter;
  const file = inputs.env.QUOTES_FILE;
  const instruments = readQuoteInstruments(isAbsolute(file) ? file : resolve(inputs.repoRoot, file));
  const producer = new JsonProducer({ brokers: inputs.brokers, clientId: 'quote-poller' });
  const metrics = createQuotePollerMetrics(inputs.registry);
  let poller: QuotePoller | undefined;
  const client = quoteClient(
    { baseUrl: inputs.baseUrl, clientId: inputs.clientId },
    inputs.tokens,
    limiter,
    metrics,
    () => poller?.noteThrottled(),
  );
  poller = new QuotePoller(
    { instruments },
    {
      client,
      publisher: producer,
      store: inputs.store.internal,
      registry: inputs.registry,
      metrics,
      log: (event, fields) => log(`quote-poller: ${event} ${JSON.stringify(fields)}`),
    },
  );
  const running = poller;
  onExit('quote-poller', async () => {
    await running.stop();
    await producer.close();
  });
  void running.run().catch((error: unknown) => log(`quote-poller failed: ${(error as Error).message}`));
  return limiter;
}
