/** The leadership section of the ingestor's config, read once by the declarative reader. */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { IngestorError } from '../errors.js';

export interface LeadershipOptions {
  /** The consumer group that decides the leader. Default `feedpipe-ingestor-leader`. */
  groupId?: string;
  /** Its one-partition control topic. Default `feed.ingestor-control`. */
  topic?: string;
  /** The coordinator's session: a dead or frozen leader is replaced after it. Default 3 000 ms. */
  sessionTimeoutMs?: number;
  /**
   * Write-ahead logs of the other ingestor processes on this host: the new leader replays what a
   * fallen one logged and Kafka never acknowledged (without doubles, by source identity).
   */
  peerWalDirs?: readonly string[];
  /** How long a stopping leader waits for a standby to claim its connections. Default 3 000 ms; 0: no handover. */
  handoverClaimMs?: number;
}

export type ResolvedLeadershipOptions = Required<LeadershipOptions>;

/** Ranges as INGESTOR_LEADER_SESSION_MS and INGESTOR_HANDOVER_CLAIM_MS allow them (env-config.ts). */
const LEADERSHIP_OPTIONS = {
  groupId: { kind: 'string', default: 'feedpipe-ingestor-leader' },
  topic: { kind: 'string', default: 'feed.ingestor-control' },
  sessionTimeoutMs: { kind: 'integer', min: 1, max: 60_000, default: 3_000 },
  peerWalDirs: { kind: 'list' },
  handoverClaimMs: { kind: 'integer', min: 0, max: 60_000, default: 3_000 },
} as const satisfies OptionsSchema;

export function resolveLeadershipOptions(options: LeadershipOptions): ResolvedLeadershipOptions {
  const v = readOptions(LEADERSHIP_OPTIONS, options, {
    where: 'ingestor config.leadership',
    fail: (message) => new IngestorError('CONFIG_INVALID', message),
  });
  return { ...v, peerWalDirs: options.peerWalDirs ?? [] };
}
