/**
 * The fetch path of a reader (the group consumer and the group-less topic tail), built once: a
 * client for metadata and offset calls, long polls on a connection pool of their own (so a lookup
 * never queues behind a poll, and a poll's timeout is its wait plus a margin), the leader source,
 * and the fetcher with the size limits and their defaults.
 */
import { Base, ConnectionPool } from '@platformatic/kafka';
import { MetadataSource } from '../cluster/metadata-source.js';
import { brokerOf } from '../options.js';
import { DEFAULT_FETCH_MARGIN_MS, Fetcher } from './fetcher.js';

export interface FetchPathOptions {
  clientId: string;
  brokers: readonly string[];
  requestTimeoutMs: number;
  /** How long the broker may hold a fetch open (ms). */
  maxWaitMs: number;
  /** What a fetch may take beyond maxWaitMs before it is given up. Default DEFAULT_FETCH_MARGIN_MS. */
  fetchMarginMs?: number | undefined;
  /** Default 1. */
  minBytes?: number | undefined;
  /** Default 4 MiB. */
  maxBytes?: number | undefined;
  /** Default 1 MiB. */
  maxBytesPerPartition?: number | undefined;
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
    requestTimeout: options.maxWaitMs + (options.fetchMarginMs ?? DEFAULT_FETCH_MARGIN_MS),
    connectTimeout: 5_000,
  });
  const metadata = new MetadataSource({ clientId, bootstrap: options.brokers.map(brokerOf) });
  const limits = {
    maxWaitMs: options.maxWaitMs,
    minBytes: options.minBytes ?? 1,
    maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
    maxBytesPerPartition: options.maxBytesPerPartition ?? 1024 * 1024,
  };
  return { client, fetchPool, metadata, fetcher: new Fetcher(client, fetchPool, limits, metadata) };
}
