/** The loader CLI's ops endpoint: /metrics, and /healthz and /readyz answering the status as JSON. */
import type { Server } from 'node:http';
import { ConnectionBudget, createLimitedServer, OPS_SERVER_LIMITS } from '@feedpipe/service-kit';
import type { Registry } from 'prom-client';

export function startLoaderOps(
  registry: Registry,
  status: () => unknown,
  host: string,
  port: number,
): Server | undefined {
  if (port <= 0) return undefined;
  // The same idle, header and request timeouts and connection cap as every ops endpoint.
  return createLimitedServer(
    (req, res) => {
      if (req.url === '/metrics') {
        void registry.metrics().then((text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        });
      } else if (req.url === '/healthz' || req.url === '/readyz') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status()));
      } else {
        res.writeHead(404).end();
      }
    },
    OPS_SERVER_LIMITS,
    { budget: new ConnectionBudget(OPS_SERVER_LIMITS.maxConnections) },
  ).listen(port, host);
}
