/**
 * A minimal HTTP endpoint for operators: /metrics (Prometheus text), /healthz (the process is
 * alive), /readyz (the service can do its job; 503 with the reason otherwise). Its connections are
 * bounded like every HTTP server's (http-server-limits.ts), with a small cap of its own: it shares
 * its process with the pipeline, whose descriptors a flood of this port must never take.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import {
  ConnectionBudget,
  createLimitedServer,
  type HttpServerLimits,
  OPS_SERVER_LIMITS,
} from './http-server-limits.js';

export interface OpsServerOptions {
  registries: Registry[];
  ready: () => { ready: boolean; detail: unknown };
  host?: string;
  port?: number;
  /** Default OPS_SERVER_LIMITS (tests set short ones). */
  limits?: HttpServerLimits;
}

export interface OpsServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const limits = options.limits ?? OPS_SERVER_LIMITS;
  const server: Server = createLimitedServer(
    (request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/metrics') {
        Promise.all(options.registries.map((r) => r.metrics()))
          .then((texts) => {
            response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
            response.end(texts.join('\n'));
          })
          .catch((error: unknown) => {
            response.writeHead(500, { 'content-type': 'text/plain' });
            response.end(`metrics failed: ${(error as Error).message}`);
          });
        return;
      }
      if (path === '/healthz') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"status":"ok"}');
        return;
      }
      if (path === '/readyz') {
        const { ready, detail } = options.ready();
        response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', detail }));
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"not found"}');
    },
    limits,
    { budget: new ConnectionBudget(limits.maxConnections) },
  );
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
