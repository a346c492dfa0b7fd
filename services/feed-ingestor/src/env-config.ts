/**
 * Configuration of the ingestor process from environment variables (docs/configuration.md),
 * validated once with a message per bad value. Secrets are read, never echoed.
 */

import { readFileSync } from 'node:fs';
import { type Env, type EnvSchema, readEnv } from '@feedpipe/config';
import { FEED_TOPICS_ENV, type FeedTopics, feedTopicsOf } from '@feedpipe/contracts';
import { CREDENTIALS_ENV, type CredentialsConfig, credentialsConfigFromEnv } from '@feedpipe/credentials';
import { IngestorError } from './errors.js';
import type { FeedCredentials } from './feed/feed-connection.js';
import type { LeadershipOptions } from './leader/leadership-options.js';
import { readUniverseIds } from './subscriptions/universe-file.js';
import { type FeedWalOptions, WAL_FSYNC_POLICIES, type WalFsyncPolicy } from './wal/wal-options.js';

export interface IngestorEnvConfig {
  feedUrl: string;
  /** `token` is the configured one (empty for totp and file): `run` takes the token from `tokens`. */
  credentials: FeedCredentials;
  /** Where the access token comes from and how it is renewed (packages/credentials). */
  tokens: CredentialsConfig;
  brokers: string[];
  topics: FeedTopics;
  connections: number;
  workers: number;
  /** INGESTOR_SOCKET_THREAD: the feed sockets on a thread of their own. */
  socketThread: boolean;
  tradeInstruments: string[];
  ohlcInstruments: string[];
  metricsPort: number;
  /** Address of /metrics, /healthz, /readyz. Default 127.0.0.1; 0.0.0.0 to let Prometheus in. */
  metricsHost: string;
  captureFile: string | undefined;
  /** INGESTOR_SILENT_AFTER_MS: silence (no market data while the market is open) before /readyz says 503. */
  silentAfterMs: number;
  /** INGESTOR_STALE_AFTER_MS: no trade this long while live and open is a `stale` gap (0: off). */
  staleAfterMs: number;
  /** INGESTOR_STATE_FILE: where the run notes it is alive, so the next start records the downtime. */
  stateFile: string | undefined;
  /** Where subscription changes made while running are kept (default: beside the state file). */
  subscriptionsFile: string | undefined;
  /** UNIVERSE_FILE, OHLC_UNIVERSE_FILE: watched for edits while running (UNIVERSE_WATCH_MS; 0: not). */
  universeFiles: { trade?: string; ohlc?: string };
  universeWatchMs: number;
  /** The ops key (INGESTOR_OPS_KEY or the content of INGESTOR_OPS_KEY_FILE); unset: no ops route. */
  opsKey: string | undefined;
  opsHost: string;
  opsPort: number;
  /** INGESTOR_WAL_*: the feed write-ahead log; undefined (off) without INGESTOR_WAL_DIR. */
  wal: FeedWalOptions | undefined;
  /** INGESTOR_LEADERSHIP=kafka and its INGESTOR_LEADER_*, INGESTOR_HANDOVER_*, INGESTOR_WAL_PEERS. */
  leadership: LeadershipOptions | undefined;
}

const HOST_PORT = { pattern: /^[\w.-]+:\d+$/, allowed: 'host:port' };

/** Every variable `feed-ingestor run` reads (docs/configuration.md, feed-ingestor, `run`). */
export const INGESTOR_ENV = {
  SVC_FEED_URL: { type: 'url', protocols: ['ws', 'wss'], required: true, description: 'the live feed' },
  SVC_CLIENT_ID: { type: 'string', required: true, description: 'client id sent on the feed URL' },
  ...CREDENTIALS_ENV,
  SVC_AUTH_TYPE: { type: 'integer', min: 1, max: 3, default: 2, description: 'feed `authType`' },
  KAFKA_BROKERS: { type: 'list', entry: HOST_PORT, required: true, description: 'Kafka brokers' },
  UNIVERSE_FILE: {
    type: 'string',
    unset: 'no trade subscriptions',
    description: 'instruments subscribed for trades',
  },
  OHLC_UNIVERSE_FILE: {
    type: 'string',
    unset: 'no OHLC subscriptions',
    description: 'instruments subscribed for OHLC',
  },
  INGESTOR_CONNECTIONS: { type: 'integer', min: 1, max: 5, default: 5, description: 'feed connections' },
  INGESTOR_WORKERS: { type: 'integer', min: 1, max: 32, default: 2, description: 'decode worker threads' },
  INGESTOR_SOCKET_THREAD: {
    type: 'enum',
    values: ['on', 'off'],
    default: 'on',
    description:
      'on: the feed sockets live on a thread of their own (subscriptions sent as a socket opens, messages stamped as read, whatever the main thread is doing); off: on the main thread',
  },
  ...FEED_TOPICS_ENV,
  METRICS_PORT: { type: 'integer', min: 0, max: 65_535, default: 9464, description: 'ops endpoint port' },
  METRICS_HOST: { type: 'string', default: '127.0.0.1', description: 'address of the ops endpoint' },
  CAPTURE_FILE: {
    type: 'string',
    unset: 'no capture',
    description: 'record every received WebSocket message (capture format, for replay)',
  },
  INGESTOR_SILENT_AFTER_MS: {
    type: 'integer',
    min: 0,
    max: 86_400_000,
    default: 60_000,
    description: 'silence (no market data while the market is open) before /readyz answers 503; 0: off',
  },
  INGESTOR_STALE_AFTER_MS: {
    type: 'integer',
    min: 0,
    max: 86_400_000,
    default: 600_000,
    description:
      'an instrument with no trade this long while its subscription is live and the market open is a stale gap in the ledger of gaps; 0: off',
  },
  INGESTOR_STATE_FILE: {
    type: 'string',
    unset: 'downtime between runs not in the ledger of gaps',
    description:
      'file the ingestor rewrites every 5 s (alive, stopped, instruments held); the next start records the downtime in between as process_stopped gaps',
  },
  UNIVERSE_CHANGES_FILE: {
    type: 'string',
    unset:
      'beside INGESTOR_STATE_FILE (its path + `.universe-changes.json`); without either, changes last until the stop',
    description:
      'subscription changes made while running (ops route), kept so the next start subscribes the same',
  },
  UNIVERSE_WATCH_MS: {
    type: 'integer',
    min: 0,
    max: 3_600_000,
    default: 2_000,
    description:
      'how often UNIVERSE_FILE and OHLC_UNIVERSE_FILE are looked at for edits, applied while running; 0: not watched',
  },
  INGESTOR_OPS_KEY: {
    type: 'string',
    secret: true,
    unset: 'no ops route unless INGESTOR_OPS_KEY_FILE',
    description: 'the key of the ops route (POST /v1/subscriptions), at least 24 characters; never logged',
  },
  INGESTOR_OPS_KEY_FILE: {
    type: 'string',
    unset: 'see INGESTOR_OPS_KEY',
    description: 'a file holding the ops key (a compose secret)',
  },
  INGESTOR_OPS_HOST: { type: 'string', default: '127.0.0.1', description: 'address of the ops route' },
  INGESTOR_OPS_PORT: {
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 9465,
    description: 'port of the ops route (beside METRICS_PORT)',
  },
  INGESTOR_WAL_DIR: {
    type: 'string',
    unset: 'no write-ahead log: frames received and not yet acknowledged by Kafka are lost with the process',
    description:
      'directory of the feed write-ahead log: every frame is logged before decoding, and the next start produces what Kafka had not acknowledged (one process per directory)',
  },
  INGESTOR_WAL_MAX_BYTES: {
    type: 'integer',
    min: 4_096,
    max: 2 ** 40,
    default: 1024 * 1024 * 1024,
    description:
      'bound on the bytes the write-ahead log holds; beyond it frames are produced but not logged (counted)',
  },
  INGESTOR_WAL_SEGMENT_BYTES: {
    type: 'integer',
    min: 4_096,
    max: 2 ** 31,
    default: 64 * 1024 * 1024,
    description: 'size at which a write-ahead log segment is closed (at the next chunk boundary)',
  },
  INGESTOR_WAL_FSYNC: {
    type: 'enum',
    values: WAL_FSYNC_POLICIES,
    default: 'none',
    description:
      'none: the kernel writes the log back (survives a process crash, not a host crash); interval: fdatasync every INGESTOR_WAL_FSYNC_INTERVAL_MS',
  },
  INGESTOR_WAL_FSYNC_INTERVAL_MS: {
    type: 'integer',
    min: 1,
    max: 3_600_000,
    default: 1_000,
    description: 'time between fdatasync rounds of the write-ahead log with INGESTOR_WAL_FSYNC=interval',
  },
  INGESTOR_LEADERSHIP: {
    type: 'enum',
    values: ['off', 'kafka'],
    default: 'off',
    description:
      'kafka: one of several ingestor processes of the client id, one leading and the others standing by, decided by Kafka group membership (docs/operations.md, "Upgrading without a hole"); off: this process always leads',
  },
  INGESTOR_LEADER_GROUP: {
    type: 'string',
    default: 'feedpipe-ingestor-leader',
    description: 'the consumer group that decides the leader (the same in every process of the client id)',
  },
  INGESTOR_CONTROL_TOPIC: {
    type: 'string',
    default: 'feed.ingestor-control',
    description: 'the one-partition topic of that group, also carrying the handover messages',
  },
  INGESTOR_LEADER_SESSION_MS: {
    type: 'integer',
    min: 1_000,
    max: 60_000,
    default: 3_000,
    description:
      "the group session: a dead or frozen leader's lease runs out within it and a standby takes over after it (the broker's group.min.session.timeout.ms must allow it)",
  },
  INGESTOR_HANDOVER_CLAIM_MS: {
    type: 'integer',
    min: 0,
    max: 60_000,
    default: 3_000,
    description:
      'how long a stopping leader waits for a standby to take its connections over; 0: no handover (the standby takes over after the leader left)',
  },
  INGESTOR_WAL_PEERS: {
    type: 'list',
    unset: 'no other log is replayed',
    description:
      'write-ahead log directories of the other ingestor processes on this host: a new leader replays what a fallen one logged and Kafka had not acknowledged',
  },
} as const satisfies EnvSchema;

/** The ops key from the variable or its file; a file that cannot be read is a problem of the configuration. */
function opsKeyOf(v: { INGESTOR_OPS_KEY?: string; INGESTOR_OPS_KEY_FILE?: string }, problems: string[]) {
  if (v.INGESTOR_OPS_KEY) return v.INGESTOR_OPS_KEY;
  if (!v.INGESTOR_OPS_KEY_FILE) return undefined;
  try {
    return readFileSync(v.INGESTOR_OPS_KEY_FILE, 'utf8').trim();
  } catch (error) {
    problems.push(
      `INGESTOR_OPS_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return undefined;
  }
}

export function loadIngestorEnv(env: Env = process.env): IngestorEnvConfig {
  const { values: v, problems } = readEnv(INGESTOR_ENV, env, { ownPrefixes: ['INGESTOR_'] });
  let trade: string[] = [];
  let ohlc: string[] = [];
  try {
    if (v.UNIVERSE_FILE) trade = readUniverseIds(v.UNIVERSE_FILE);
    if (v.OHLC_UNIVERSE_FILE) ohlc = readUniverseIds(v.OHLC_UNIVERSE_FILE);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const opsKey = opsKeyOf(v, problems);
  let tokens: CredentialsConfig | undefined;
  try {
    tokens = credentialsConfigFromEnv(env, v.SVC_CLIENT_ID ?? '');
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0 || tokens === undefined) {
    throw new IngestorError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return {
    feedUrl: v.SVC_FEED_URL,
    tokens,
    credentials: {
      clientId: v.SVC_CLIENT_ID,
      token: tokens.accessToken ?? '',
      authType: v.SVC_AUTH_TYPE as 1 | 2 | 3,
    },
    brokers: v.KAFKA_BROKERS,
    topics: feedTopicsOf(v),
    connections: v.INGESTOR_CONNECTIONS,
    workers: v.INGESTOR_WORKERS,
    socketThread: v.INGESTOR_SOCKET_THREAD === 'on',
    tradeInstruments: trade,
    ohlcInstruments: ohlc,
    metricsPort: v.METRICS_PORT,
    metricsHost: v.METRICS_HOST,
    captureFile: v.CAPTURE_FILE,
    silentAfterMs: v.INGESTOR_SILENT_AFTER_MS,
    staleAfterMs: v.INGESTOR_STALE_AFTER_MS,
    stateFile: v.INGESTOR_STATE_FILE,
    subscriptionsFile:
      v.UNIVERSE_CHANGES_FILE ??
      (v.INGESTOR_STATE_FILE ? `${v.INGESTOR_STATE_FILE}.universe-changes.json` : undefined),
    universeFiles: { trade: v.UNIVERSE_FILE, ohlc: v.OHLC_UNIVERSE_FILE },
    universeWatchMs: v.UNIVERSE_WATCH_MS,
    opsKey,
    opsHost: v.INGESTOR_OPS_HOST,
    opsPort: v.INGESTOR_OPS_PORT,
    wal: v.INGESTOR_WAL_DIR
      ? {
          dir: v.INGESTOR_WAL_DIR,
          maxBytes: v.INGESTOR_WAL_MAX_BYTES,
          segmentBytes: v.INGESTOR_WAL_SEGMENT_BYTES,
          fsync: v.INGESTOR_WAL_FSYNC as WalFsyncPolicy,
          fsyncIntervalMs: v.INGESTOR_WAL_FSYNC_INTERVAL_MS,
        }
      : undefined,
    leadership:
      v.INGESTOR_LEADERSHIP === 'kafka'
        ? {
            groupId: v.INGESTOR_LEADER_GROUP,
            topic: v.INGESTOR_CONTROL_TOPIC,
            sessionTimeoutMs: v.INGESTOR_LEADER_SESSION_MS,
            handoverClaimMs: v.INGESTOR_HANDOVER_CLAIM_MS,
            peerWalDirs: v.INGESTOR_WAL_PEERS ?? [],
          }
        : undefined,
  };
}
