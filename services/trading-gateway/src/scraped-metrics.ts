/**
 * Metrics read from a part's own counters at scrape time, so its hot path counts nothing twice: a
 * gauge or a counter whose value `value` takes from what `read` answers (0 while it answers
 * undefined: the part is not running). The postback receiver's and the audit journal's metrics.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export function scrapedGauge<S>(
  registry: Registry,
  name: string,
  help: string,
  value: (source: S) => number,
  read: () => S | undefined,
): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const s = read();
      this.set(s ? value(s) : 0);
    },
  });
}

export function scrapedCounter<S>(
  registry: Registry,
  name: string,
  help: string,
  value: (source: S) => number,
  read: () => S | undefined,
): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const s = read();
      this.reset();
      this.inc(s ? value(s) : 0);
    },
  });
}
