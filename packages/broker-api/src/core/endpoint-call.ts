/**
 * The shape every endpoint method shares, written once: the HTTP method is the route's first word
 * (`GET /globalstocks/orders`), a read is idempotent, and the answer is checked to be an object or
 * a list before it is typed. Endpoint modules then state only what differs: the route, the
 * concrete path when it has parameters, and a body.
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

/** A call answered by one object. */
export async function callObject<T>(t: Transport, route: string, details: CallDetails): Promise<T> {
  const r = await t.call({ method: methodOf(route), route, path: pathOf(route), ...details });
  return expectObject<T>(r.body, route);
}

/** A call answered by a list (an empty body is an empty list). */
export async function callList<T>(t: Transport, route: string, details: CallDetails): Promise<T[]> {
  const r = await t.call({ method: methodOf(route), route, path: pathOf(route), ...details });
  return expectArray<T>(r.body, route);
}

/** An idempotent read of one object; `path` defaults to the route's own. */
export function readObject<T>(
  t: Transport,
  route: string,
  signal?: AbortSignal,
  path = pathOf(route),
): Promise<T> {
  return callObject<T>(t, route, { path, idempotent: true, signal });
}

/** An idempotent read of a list; `path` defaults to the route's own. */
export function readList<T>(
  t: Transport,
  route: string,
  signal?: AbortSignal,
  path = pathOf(route),
): Promise<T[]> {
  return callList<T>(t, route, { path, idempotent: true, signal });
}
