/**
 * Time to recover from a fault, read from the pipeline's two counters sampled every 250 ms: the
 * ingestor's Kafka acknowledgements and the sink's inserts into ClickHouse.
 *
 * A counter "stalls" when it does not advance for longer than its normal rhythm: the longest gap
 * seen in the 10 s before the fault, doubled, and at least `minGapMs` (the sink inserts in blocks, so its
 * counter moves in steps a second or more apart even when all is well). The recovery time is from
 * the fault until the end of the last stall of either counter that began within the fault's window:
 * from then on records flow end to end again. No stall: 0.
 */
export interface Sample {
  at: number;
  acked: number;
  inserted: number;
}

export interface Recovery {
  /** Seconds from the fault until both counters advance normally again. */
  recoverySeconds: number;
  /** Longest stall of the acknowledgements / the inserts within the window, seconds. */
  ackStallSeconds: number;
  storeStallSeconds: number;
}

/** How far before a fault its counters' normal rhythm is read. */
const BASELINE_MS = 10_000;

interface Gap {
  from: number;
  to: number;
}

/** Intervals between consecutive advances of `pick` (a counter that is reset counts as advancing). */
function gaps(samples: readonly Sample[], pick: (s: Sample) => number): Gap[] {
  const out: Gap[] = [];
  let lastMove: number | undefined;
  for (let i = 1; i < samples.length; i++) {
    const prev = samples[i - 1] as Sample;
    const cur = samples[i] as Sample;
    if (pick(cur) !== pick(prev)) {
      if (lastMove !== undefined) out.push({ from: lastMove, to: cur.at });
      lastMove = cur.at;
    }
  }
  return out;
}

function stallEnd(
  samples: readonly Sample[],
  pick: (s: Sample) => number,
  faultAt: number,
  windowEnd: number,
  minGapMs: number,
): { end: number; longest: number } {
  const all = gaps(samples, pick);
  // The rhythm just before the fault (an earlier fault's stall must not raise the bar).
  const before = all
    .filter((g) => g.to <= faultAt && g.from >= faultAt - BASELINE_MS)
    .reduce((m, g) => Math.max(m, g.to - g.from), 0);
  const threshold = Math.max(minGapMs, 2 * before);
  let end = faultAt;
  let longest = 0;
  for (const g of all) {
    if (g.to - g.from < threshold || g.to < faultAt || g.from > windowEnd) continue;
    end = Math.max(end, g.to);
    longest = Math.max(longest, g.to - g.from);
  }
  return { end, longest };
}

/** The recovery after a fault at `faultAt` whose effects are expected up to `windowEnd` (ms). */
export function recoveryAfter(
  samples: readonly Sample[],
  faultAt: number,
  windowEnd: number,
  minGapMs = 2_000,
): Recovery {
  const ack = stallEnd(samples, (s) => s.acked, faultAt, windowEnd, minGapMs);
  const store = stallEnd(samples, (s) => s.inserted, faultAt, windowEnd, minGapMs);
  const round = (ms: number) => Math.round(ms / 100) / 10;
  return {
    recoverySeconds: round(Math.max(ack.end, store.end) - faultAt),
    ackStallSeconds: round(ack.longest),
    storeStallSeconds: round(store.longest),
  };
}
