/**
 * The listener of the ingestor's ops route (subscription-route.ts): its own port beside the
 * /metrics endpoint, so the route can stay on loopback (or a private network) while Prometheus
 * scrapes from elsewhere. Bounded like every HTTP server of the project (OPS_SERVER_LIMITS).
 */
import type { AddressInfo } from 'node:net';
import { createLimitedServer, OPS_SERVER_LIMITS } from '@feedpipe/service-kit';
import type { FeedIngestor } from '../ingestor.js';
import { OpsKey } from './ops-key.js';
import { subscriptionRoute } from './subscription-route.js';

export interface OpsRouteServerOptions {
  ingestor: Pick<FeedIngestor, 'changeSubscriptions' | 'subscriptions' | 'metrics'>;
  /** The ops key (INGESTOR_OPS_KEY); at least MIN_OPS_KEY_LENGTH characters. */
  key: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  log: (message: string) => void;
}

export interface OpsRouteServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startOpsRouteServer(options: OpsRouteServerOptions): Promise<OpsRouteServer> {
  const key = new OpsKey(options.key);
  const server = createLimitedServer(
    subscriptionRoute(options.ingestor, key, options.log),
    OPS_SERVER_LIMITS,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
