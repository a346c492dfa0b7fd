/**
 * Where a replay writes. By default into topics of its own, the live names behind a prefix
 * (`replay.feed.trades`, ...), which no sink of the live pipeline reads: a replay can be watched,
 * tested or fed to a scratch consumer without touching what is stored. The live topics only when
 * the operator says so (`intoLive`); then every replayed record carries a source identity of the
 * replay (replay-identity.ts), so the sink drops a record it has already taken from an earlier
 * replay of the same source (SourceMarks), and a replay repeated or resumed stores nothing twice.
 */
import { type FeedTopics, TOPIC_KINDS } from '@feedpipe/contracts';
import { IngestorError } from '../errors.js';

export const DEFAULT_REPLAY_TOPIC_PREFIX = 'replay.';

/** Kafka's rule for a topic name: these characters, at most 249 of them, not `.` or `..`. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export interface ReplayTargetOptions {
  /** The live topics (TOPIC_* of the pipeline). */
  live: Readonly<FeedTopics>;
  /** Prefix of the replay's own topics. Default `replay.`; not allowed together with intoLive. */
  prefix?: string;
  /** Write into the live topics themselves. Default false. */
  intoLive?: boolean;
}

/** The topics a replay writes to, or an IngestorError saying why not. */
export function replayTopics(options: ReplayTargetOptions): FeedTopics {
  if (options.intoLive === true) {
    if (options.prefix !== undefined) {
      throw new IngestorError('REPLAY_INVALID', 'give either --into-live or --topic-prefix, not both');
    }
    return { ...options.live };
  }
  const prefix = options.prefix ?? DEFAULT_REPLAY_TOPIC_PREFIX;
  const live = new Set(TOPIC_KINDS.map((kind) => options.live[kind]));
  const topics = Object.fromEntries(
    TOPIC_KINDS.map((kind) => [kind, `${prefix}${options.live[kind]}`]),
  ) as unknown as FeedTopics;
  for (const kind of TOPIC_KINDS) {
    const name = topics[kind];
    if (!TOPIC_NAME.test(name) || name === '.' || name === '..') {
      throw new IngestorError(
        'REPLAY_INVALID',
        `--topic-prefix "${prefix}" gives the topic name "${name}": Kafka allows letters, digits, '.', '_' and '-', at most 249`,
      );
    }
    if (live.has(name)) {
      throw new IngestorError(
        'REPLAY_LIVE_TOPICS',
        `the replay would write into the live topic ${name}; give a --topic-prefix of the replay's own, or --into-live to write into the live topics on purpose`,
      );
    }
  }
  return topics;
}
