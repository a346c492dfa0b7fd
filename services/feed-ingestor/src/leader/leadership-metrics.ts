/**
 * The leadership metrics, registered in every ingestor (one that runs without leadership always
 * leads), so dashboards and alerts read the same series whether a deployment runs one ingestor or
 * a leader and standbys.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface LeadershipMetrics {
  leader: Gauge;
  changes: Counter<'to'>;
  handovers: Counter<'outcome'>;
}

export function createLeadershipMetrics(registry: Registry): LeadershipMetrics {
  const registers = [registry];
  return {
    leader: new Gauge({
      name: 'ingestor_leader',
      help: 'Whether this ingestor process holds the feed (1) or stands by (0)',
      registers,
    }),
    changes: new Counter({
      name: 'ingestor_leadership_changes_total',
      help: 'Leadership gained (to="leader") and lost (to="fenced") by this process',
      labelNames: ['to'],
      registers,
    }),
    handovers: new Counter({
      name: 'ingestor_handovers_total',
      help: 'Planned handovers this process made as the stopping leader, by outcome (done, unclaimed, aborted)',
      labelNames: ['outcome'],
      registers,
    }),
  };
}
