import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What an operator asks of the quote poller: request rate and outcomes, quotes, write backlog. */
export interface QuotePollerMetrics {
  requests: Counter<'outcome'>;
  quotes: Counter;
  writeFailures: Counter<'target'>;
  pendingWrites: Gauge;
  roundSeconds: Histogram;
}

export function createQuotePollerMetrics(registry: Registry): QuotePollerMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'quote_poller_requests_total',
      help: 'Quote requests answered by the service (the client retries included), by outcome (ok, throttled = 429, client_error, server_error, network)',
      labelNames: ['outcome'],
      registers,
    }),
    quotes: new Counter({
      name: 'quote_poller_quotes_total',
      help: 'Instrument quotes received and handed to Kafka and ClickHouse',
      registers,
    }),
    writeFailures: new Counter({
      name: 'quote_poller_write_failures_total',
      help: 'Failed attempts to publish (kafka) or store (clickhouse) a batch of quotes; the batch is tried again',
      labelNames: ['target'],
      registers,
    }),
    pendingWrites: new Gauge({
      name: 'quote_poller_pending_writes',
      help: 'Batches of quotes received and not yet both published and stored (polling waits at the bound)',
      registers,
    }),
    roundSeconds: new Histogram({
      name: 'quote_poller_round_seconds',
      help: 'Time to poll every configured instrument once',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200],
      registers,
    }),
  };
}
