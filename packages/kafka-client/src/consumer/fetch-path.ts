/**
 * The fetch path of a reader (the group consumer and the group-less topic tail), built once: a
 * client for metadata and offset calls, long polls on a connection pool of their own (so a lookup
 * never queues behind a poll, and a poll's timeout is its wait plus a margin), the leader source,
 * and the fetcher with the size limits (settled by the caller's options schema: no default here).
 */
import { Base, ConnectionPool } from '@platformatic/kafka';
import { MetadataSource } from '../cluster/metadata-source.js';
import { brokerOf } from '../options.js';
import { Fetcher } from './fetcher.js';

export interface FetchPathOptions {
  clientId: string;
  brokers: readonly string[];
  requestTimeoutMs: number;
  /** How long the broker may hold a fetch open (ms). */
  maxWaitMs: number;
  /** What a fetch may take beyond maxWaitMs before it is given up (ms). */
  fetchMarginMs: number;
  /** Bytes a fetch waits for (up to maxWaitMs). */
  minBytes: number;
  /** Bytes per fetch request (per broker). */
  maxBytes: number;
  maxBytesPerPartition: number;
}

export interface FetchPath {
  client: Base;
  fetchPool: ConnectionPool;
  metadata: MetadataSource;
  fetcher: Fetcher;
}

export function openFetchPath(options: FetchPathOptions): FetchPath {
  const { clientId } = options;
  // The readers' loops retry with their own backoff; the library's retries are for its metadata calls.
  const client = new Base({
    clientId,
    bootstrapBrokers: [...options.brokers],
    timeout: options.requestTimeoutMs,
    retries: 1,
    retryDelay: 250,
  });
  const fetchPool = new ConnectionPool(clientId, {
    requestTimeout: options.maxWaitMs + options.fetchMarginMs,
    connectTimeout: 5_000,
  });
  const metadata = new MetadataSource({ clientId, bootstrap: options.brokers.map(brokerOf) });
  const { maxWaitMs, minBytes, maxBytes, maxBytesPerPartition } = options;
  const limits = { maxWaitMs, minBytes, maxBytes, maxBytesPerPartition };
  return { client, fetchPool, metadata, fetcher: new Fetcher(client, fetchPool, limits, metadata) };
}
