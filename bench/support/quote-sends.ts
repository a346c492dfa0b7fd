import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { RATE_GRANT_CHANNEL, type RateGrantEvent } from '@feedpipe/broker-api';

/** One quote request of a process: when it was written to its socket, and how its slot was granted. */
export interface QuoteSend {
  /** When the request's head was written to its socket (epoch ms). */
  sentAt: number;
  /** When the call asked the limiter for its slot. */
  askedAt: number;
  /** When the limiter computed the slot to be free (askedAt when it did not wait). */
  dueAt: number;
  /** When the limiter granted the slot. */
  grantedAt: number;
  /** CPU time of the event loop's thread between the grant and the write (the rest it was off CPU). */
  writeCpuMs: number;
  /** Garbage collection pauses between the grant and the write. */
  writeGcMs: number;
  /** Garbage collection pauses between the slot's due time (as the limiter saw it) and the grant. */
  grantGcMs: number;
  /** Time the event loop's thread was ready to run but waited for a core (Linux; 0 elsewhere). */
  writeRunQueueMs: number;
}

/** The event loop thread's wait for a core so far (ns; /proc/thread-self/schedstat, Linux only). */
function runQueueNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Records each quote request of this process into `sends`: when it was written to its socket
 * (undici's `undici:client:sendHeaders` diagnostics channel, which Node's fetch publishes: the
 * moment the limiter counts a quote request from, broker-api core/socket-write.ts), paired with the
 * limiter's grant of its slot (broker-api's RATE_GRANT_CHANNEL). One quote request is granted and
 * written at a time, so grants and writes pair up in order.
 */
export function recordQuoteSends(sends: QuoteSend[]): () => void {
  const granted: { grant: RateGrantEvent; cpuUs: number; perfAt: number; queuedNs: number }[] = [];
  const gcs: { start: number; end: number }[] = [];
  const windows: { from: number; to: number }[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
    if (gcs.length > 100_000) gcs.splice(0, gcs.length - 100_000);
  }).observe({ entryTypes: ['gc'] });
  subscribe(RATE_GRANT_CHANNEL, (message) => {
    const grant = message as RateGrantEvent;
    if (grant.category === 'quote') {
      const cpu = process.threadCpuUsage();
      granted.push({
        grant,
        cpuUs: cpu.user + cpu.system,
        perfAt: performance.now(),
        queuedNs: runQueueNs(),
      });
    }
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const path = (message as { request?: { path?: string } }).request?.path ?? '';
    if (!path.endsWith('/marketfeed/quote')) return;
    const sentAt = Date.now();
    const perfAt = performance.now();
    const cpu = process.threadCpuUsage();
    const g = granted.shift();
    const grant = g?.grant;
    const from = g?.perfAt ?? perfAt;
    sends.push({
      sentAt,
      askedAt: grant?.askedAt ?? sentAt,
      dueAt: grant?.dueAt ?? sentAt,
      grantedAt: grant?.grantedAt ?? sentAt,
      writeCpuMs: g === undefined ? 0 : (cpu.user + cpu.system - g.cpuUs) / 1000,
      writeGcMs: 0,
      grantGcMs: 0,
      writeRunQueueMs: g === undefined ? 0 : (runQueueNs() - g.queuedNs) / 1e6,
    });
    windows.push({ from, to: perfAt });
  });
  // GC entries arrive after the pause: the overlaps are counted once the run is over.
  return () => {
    sends.forEach((send, i) => {
      const w = windows[i];
      if (w === undefined) return;
      const paused = (from: number, to: number): number =>
        gcs.reduce((sum, gc) => sum + Math.max(0, Math.min(gc.end, to) - Math.max(gc.start, from)), 0);
      send.writeGcMs = paused(w.from, w.to);
      const origin = performance.timeOrigin;
      send.grantGcMs = paused(Math.max(send.dueAt, send.askedAt) - origin, send.grantedAt - origin);
    });
  };
}
