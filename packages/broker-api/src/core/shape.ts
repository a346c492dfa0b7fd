import { BrokerApiError, invalidArgument } from './errors.js';

/**
 * Light checks of answer shapes. The client trusts field types inside records (the spec is the
 * contract) but refuses answers whose outer shape is wrong, so a proxy's HTML page or a changed
 * envelope surfaces as INVALID_RESPONSE instead of a TypeError somewhere later.
 */
export function expectObject<T>(body: unknown, route: string): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidResponse(route, 'an object');
  }
  return body as T;
}

export function expectArray<T>(body: unknown, route: string): T[] {
  // Some deployments answer an empty list with an empty body.
  if (body === undefined) return [];
  if (!Array.isArray(body)) throw invalidResponse(route, 'an array');
  return body as T[];
}

/** The `{ data: ..., status }` envelope of the market-data answers. */
export function expectData(body: unknown, route: string): unknown {
  const record = expectObject<Record<string, unknown>>(body, route);
  if (!('data' in record)) throw invalidResponse(route, 'an object with "data"');
  return record.data;
}

export function invalidResponse(route: string, expected: string): BrokerApiError {
  return new BrokerApiError({
    code: 'INVALID_RESPONSE',
    message: `${route} answered something other than ${expected}`,
    route,
  });
}

/** A path segment from caller input: non-empty, encoded. */
export function pathParam(value: string, name: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw invalidArgument(`${name} must be a non-empty string`);
  return encodeURIComponent(value);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function checkDate(value: string, name: string): void {
  if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw invalidArgument(`${name} must be a date written YYYY-MM-DD`);
  }
}
