/**
 * Builds the status page's live figures (PipelineStatus) from the parts `npm start` runs: feed
 * connections and ticks per second from the ingestor, lag and rows from the sink, progress and
 * budget from the history loader. Ticks per second come from a one-second sampler, so a page that
 * polls less often still sees a current rate.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { FeedIngestor } from '@feedpipe/feed-ingestor';
import type { Sink } from '@feedpipe/feed-sink';
import type { LoaderStatus } from '@feedpipe/history-loader';
import type { PipelineStatus, PipelineStatusSource } from '@feedpipe/query-api';

export interface PipelineParts {
  ingestor: FeedIngestor;
  sink: Sink;
  /** A HistoryLoader, or a ScheduledLoader whose status carries its next run. */
  loader?: { status(): LoaderStatus & { nextRunAt?: number | undefined } } | undefined;
}

export function pipelineStatusSource(parts: PipelineParts): { source: PipelineStatusSource; stop(): void } {
  let last = { at: Date.now(), packets: parts.ingestor.stats().packets };
  let ticksPerSecond = 0;
  const timer = setInterval(() => {
    const now = { at: Date.now(), packets: parts.ingestor.stats().packets };
    ticksPerSecond = ((now.packets - last.packets) * 1000) / Math.max(1, now.at - last.at);
    last = now;
  }, 1_000);
  timer.unref();

  const source = async (): Promise<PipelineStatus> => {
    const feed = parts.ingestor.stats();
    const sink = parts.sink.stats();
    const lag = (await parts.sink.metrics.lag.get()).values.reduce((sum, v) => sum + v.value, 0);
    const history = parts.loader?.status();
    return {
      at: Date.now(),
      feed: {
        ticksPerSecond,
        packets: feed.packets,
        malformed: feed.malformed,
        unknown: feed.unknown,
        bufferedBytes: feed.bufferedBytes,
        fatal: feed.fatal,
        connections: feed.connections,
        recentFeedErrors: feed.recentFeedErrors,
      },
      kafka: { produced: feed.produced, lag },
      store: {
        ticks: sink.inserted[FEED_TABLES.ticks.name] ?? 0,
        ohlc: sink.inserted[FEED_TABLES.ohlcUpdates.name] ?? 0,
        reference: sink.inserted[FEED_TABLES.referenceUpdates.name] ?? 0,
      },
      ...(history
        ? {
            loader: {
              done: history.unitsFinished,
              total: history.unitsTotal,
              failed: history.unitsFailed,
              rate: history.rate,
              budgetLeft: history.budgetLeft,
              etaSeconds: history.etaSeconds,
              nextRunAt: history.nextRunAt,
            },
          }
        : {}),
    };
  };
  return { source, stop: () => clearInterval(timer) };
}
