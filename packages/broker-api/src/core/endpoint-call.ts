/**
 * The shape every endpoint group shares, written once: it holds the transport, the HTTP method of
 * a call is its route's first word (`GET /globalstocks/orders`), the path is the route's own
 * unless the call has path parameters, a read is idempotent, and the answer is checked to be an
 * object or a list before it is typed. An endpoint module then states only what differs: the
 * route, the concrete path when it has parameters, and a body.
 */
import { expectArray, expectObject } from './shape.js';
import type { CallSpec, HttpMethod, Transport } from './transport.js';

/** What a call states besides its route: the method comes from it, and so does the path unless given. */
export type CallDetails = Omit<CallSpec, 'method' | 'route' | 'path'> & { path?: string };

function methodOf(route: string): HttpMethod {
  return route.slice(0, route.indexOf(' ')) as HttpMethod;
}

/** The route's path when it has no parameters (`GET /fundlimit` -> `/fundlimit`). */
function pathOf(route: string): string {
  return route.slice(route.indexOf(' ') + 1);
}

export abstract class EndpointGroup {
  protected readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  /** A call answered by one object. */
  protected async callObject<T>(route: string, details: CallDetails): Promise<T> {
    const r = await this.transport.call({ method: methodOf(route), route, path: pathOf(route), ...details });
    return expectObject<T>(r.body, route);
  }

  /** A call answered by a list (an empty body is an empty list). */
  protected async callList<T>(route: string, details: CallDetails): Promise<T[]> {
    const r = await this.transport.call({ method: methodOf(route), route, path: pathOf(route), ...details });
    return expectArray<T>(r.body, route);
  }

  /**
   * A call that sends a body and is answered by one object, and that is safe to repeat (a setting
   * or a calculation: sent twice, it leaves the same state), so a lost answer is retried.
   */
  protected sendRepeatable<T>(route: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.callObject<T>(route, { body, idempotent: true, signal });
  }

  /**
   * The request with this client's id added (an id the request names wins), as the bodies that
   * carry one want it.
   */
  protected withClientId<R extends object>(request: R): { svcClientId: string | undefined } & R {
    return { svcClientId: this.transport.clientId, ...request };
  }

  /** An idempotent read of one object; `path` defaults to the route's own. */
  protected readObject<T>(route: string, signal?: AbortSignal, path?: string): Promise<T> {
    return this.callObject<T>(route, { ...(path === undefined ? {} : { path }), idempotent: true, signal });
  }

  /** An idempotent read of a list; `path` defaults to the route's own. */
  protected readList<T>(route: string, signal?: AbortSignal, path?: string): Promise<T[]> {
    return this.callList<T>(route, { ...(path === undefined ? {} : { path }), idempotent: true, signal });
  }
}
