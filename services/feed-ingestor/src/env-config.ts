/**
 * Configuration of the ingestor process from environment variables (docs/configuration.md),
 * validated once with a message per bad value. Secrets are read, never echoed.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import { IngestorError } from './errors.js';
import type { FeedCredentials } from './feed/feed-connection.js';

export interface IngestorEnvConfig {
  feedUrl: string;
  credentials: FeedCredentials;
  brokers: string[];
  topics: FeedTopics;
  connections: number;
  workers: number;
  tradeInstruments: string[];
  ohlcInstruments: string[];
  metricsPort: number;
  /** Address of /metrics, /healthz, /readyz. Default 127.0.0.1; 0.0.0.0 to let Prometheus in. */
  metricsHost: string;
  captureFile: string | undefined;
  /** INGESTOR_SILENT_AFTER_MS: silence (no market data while the market is open) before /readyz says 503. */
  silentAfterMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string, problems: string[]): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    problems.push(`${name} is required`);
    return '';
  }
  return value.trim();
}

function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
    return fallback;
  }
  return value;
}

/**
 * Reads a universe of security ids: a JSON array of ids or of objects with `securityId`, or CSV with a
 * `securityId` (or `security_id`) column. Only INX_EQ rows are kept when a segment column is present.
 */
export function readUniverseIds(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const ids: string[] = [];
  if (path.endsWith('.json')) {
    const parsed = JSON.parse(text) as unknown;
    const rows = Array.isArray(parsed) ? parsed : ((parsed as { instruments?: unknown[] }).instruments ?? []);
    for (const row of rows) {
      if (typeof row === 'number' || typeof row === 'string') ids.push(String(row));
      else if (row && typeof row === 'object') {
        const r = row as Record<string, unknown>;
        const segment = r.exchangeSegment ?? r.segment;
        if (segment !== undefined && segment !== 'INX_EQ') continue;
        if (r.securityId !== undefined) ids.push(String(r.securityId));
      }
    }
  } else {
    const [header, ...lines] = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    const columns = (header ?? '').split(',').map((c) => c.trim());
    const idColumn = columns.findIndex((c) => c === 'securityId' || c === 'security_id');
    const segmentColumn = columns.findIndex((c) => c === 'exchangeSegment' || c === 'segment');
    if (idColumn < 0) throw new IngestorError('CONFIG_INVALID', `${path}: CSV needs a securityId column`);
    for (const line of lines) {
      const cells = line.split(',').map((c) => c.trim());
      if (segmentColumn >= 0 && cells[segmentColumn] !== 'INX_EQ') continue;
      const id = cells[idColumn];
      if (id) ids.push(id);
    }
  }
  for (const id of ids) {
    if (!/^\d{1,10}$/.test(id))
      throw new IngestorError('CONFIG_INVALID', `${path}: "${id}" is not a security id`);
  }
  return [...new Set(ids)];
}

export function loadIngestorEnv(env: Env = process.env): IngestorEnvConfig {
  const problems: string[] = [];
  const feedUrl = required(env, 'SVC_FEED_URL', problems);
  if (feedUrl && !/^wss?:\/\//.test(feedUrl)) problems.push('SVC_FEED_URL must start with ws:// or wss://');
  const clientId = required(env, 'SVC_CLIENT_ID', problems);
  const token = required(env, 'SVC_ACCESS_TOKEN', problems);
  const authType = integer(env, 'SVC_AUTH_TYPE', 2, 1, 3, problems) as 1 | 2 | 3;
  const brokersRaw = required(env, 'KAFKA_BROKERS', problems);
  const brokers = brokersRaw
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const b of brokers)
    if (!/^[\w.-]+:\d+$/.test(b)) problems.push(`KAFKA_BROKERS entry "${b}" must be host:port`);
  let trade: string[] = [];
  let ohlc: string[] = [];
  try {
    if (env.UNIVERSE_FILE) trade = readUniverseIds(env.UNIVERSE_FILE);
    if (env.OHLC_UNIVERSE_FILE) ohlc = readUniverseIds(env.OHLC_UNIVERSE_FILE);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const config: IngestorEnvConfig = {
    feedUrl,
    credentials: { clientId, token, authType },
    brokers,
    topics: {
      trades: env.TOPIC_TRADES ?? DEFAULT_FEED_TOPICS.trades,
      ohlc: env.TOPIC_OHLC ?? DEFAULT_FEED_TOPICS.ohlc,
      reference: env.TOPIC_REFERENCE ?? DEFAULT_FEED_TOPICS.reference,
      status: env.TOPIC_STATUS ?? DEFAULT_FEED_TOPICS.status,
    },
    connections: integer(env, 'INGESTOR_CONNECTIONS', 5, 1, 5, problems),
    workers: integer(env, 'INGESTOR_WORKERS', 2, 1, 32, problems),
    tradeInstruments: trade,
    ohlcInstruments: ohlc,
    metricsPort: integer(env, 'METRICS_PORT', 9464, 0, 65_535, problems),
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    captureFile: env.CAPTURE_FILE || undefined,
    silentAfterMs: integer(env, 'INGESTOR_SILENT_AFTER_MS', 60_000, 0, 86_400_000, problems),
  };
  if (problems.length > 0) {
    throw new IngestorError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return config;
}
