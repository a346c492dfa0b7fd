/**
 * The `feed-ingestor replay` command: flags and environment read and checked once, then runReplay.
 *
 *   feed-ingestor replay <capture-file> | --from-wal <dir> | --from-store
 *       [--speed 1x|10x|<n>x|max] [--from <instant>] [--to <instant>]
 *       [--topic-prefix <prefix> | --into-live]
 *
 * --from-wal reads segments of the feed write-ahead log (a copy of INGESTOR_WAL_DIR): their records
 * keep the live run's source identities, so into the live topics nothing is stored twice.
 *
 * Environment (docs/configuration.md, `replay`): KAFKA_BROKERS, the live TOPIC_* (the replay's own
 * topics are named after them, and --into-live writes into them), CLICKHOUSE_URL or DATA_DIR for
 * --from-store. Progress on stderr; the result as one JSON line on stdout.
 */

import { parseArgs } from 'node:util';
import { type Env, type EnvSchema, loadEnv } from '@feedpipe/config';
import { FEED_TOPICS_ENV, feedTopicsOf } from '@feedpipe/contracts';
import type { Store } from '@feedpipe/store';
import { STORE_ENV, storeConfigOf } from '@feedpipe/store/env';
import { INGESTOR_ENV } from '../env-config.js';
import { IngestorError } from '../errors.js';
import { type ReplayRunResult, type ReplaySource, runReplay } from '../replay.js';
import { parseReplayRange } from './replay-range.js';
import { parseReplaySpeed } from './replay-speed.js';

export const REPLAY_USAGE =
  'usage: feed-ingestor replay <capture-file> | --from-wal <dir> | --from-store [--speed 1x|10x|max] [--from <instant>] [--to <instant>] [--topic-prefix <prefix> | --into-live]\n';

/** Every variable `feed-ingestor replay` reads (docs/configuration.md, `replay`). */
export const REPLAY_ENV = {
  // The live pipeline's own: the replay names its topics after the ingestor's.
  KAFKA_BROKERS: INGESTOR_ENV.KAFKA_BROKERS,
  ...FEED_TOPICS_ENV,
  // --from-store only; from the store's light entry, so a replay of a capture loads no driver.
  ...STORE_ENV,
} as const satisfies EnvSchema;

const FLAGS = {
  speed: { type: 'string', default: 'max' },
  from: { type: 'string' },
  to: { type: 'string' },
  'topic-prefix': { type: 'string' },
  'into-live': { type: 'boolean', default: false },
  'from-store': { type: 'boolean', default: false },
  'from-wal': { type: 'string' },
} as const;

export async function replayCommand(
  args: string[],
  env: Env = process.env,
  progress: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<ReplayRunResult> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof FLAGS }>>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: FLAGS });
  } catch (error) {
    throw new IngestorError('REPLAY_INVALID', `${(error as Error).message}\n${REPLAY_USAGE}`);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  const walDir = values['from-wal'];
  const sources = [file, walDir].filter((s) => s !== undefined).length + (values['from-store'] ? 1 : 0);
  if (sources !== 1 || positionals.length > 1) {
    throw new IngestorError(
      'REPLAY_INVALID',
      `give one capture file, --from-wal <dir> or --from-store\n${REPLAY_USAGE}`,
    );
  }
  const speed = parseReplaySpeed(values.speed);
  const range = parseReplayRange(values.from, values.to);
  const config = loadEnv(
    REPLAY_ENV,
    env,
    (problems) =>
      new IngestorError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`),
  );
  let store: Store | undefined;
  let source: ReplaySource;
  if (file !== undefined) source = { kind: 'capture', file };
  else if (walDir !== undefined) source = { kind: 'wal', dir: walDir };
  else {
    // Loaded only here: a replay of a capture has no use for the store's drivers.
    const { createStore } = await import('@feedpipe/store');
    store = createStore(storeConfigOf(config));
    source = { kind: 'store', store: store.internal };
  }
  try {
    return await runReplay({
      source,
      brokers: config.KAFKA_BROKERS,
      liveTopics: feedTopicsOf(config),
      topicPrefix: values['topic-prefix'],
      intoLive: values['into-live'],
      speed,
      range,
      progress,
    });
  } finally {
    await store?.close();
  }
}
