/**
 * The live figures of the pipeline that only the process running it knows (the all-in-one runner
 * builds them from the ingestor, the sink and the loader). Served as JSON at /v1/pipeline.
 */
export interface PipelineStatus {
  /** Epoch milliseconds of the snapshot. */
  at: number;
  feed?: {
    ticksPerSecond?: number;
    packets: number;
    malformed: number;
    unknown: number;
    bufferedBytes: number;
    fatal?: string | undefined;
    connections: Array<{
      index: number;
      state: string;
      reason: string;
      trade: number;
      ohlc: number;
      reconnects: number;
    }>;
    recentFeedErrors: Array<{ at: number; connection: number; code: number }>;
  };
  kafka?: { produced: number; lag: number };
  store?: { ticks: number; ohlc: number; reference: number };
  loader?: {
    done: number;
    total: number;
    failed: number;
    rate: number;
    budgetLeft: number;
    etaSeconds?: number | undefined;
    /** Scheduled loader: epoch ms of its next run (undefined while one runs, or not scheduled). */
    nextRunAt?: number | undefined;
  };
}

export type PipelineStatusSource = () => PipelineStatus | Promise<PipelineStatus>;
