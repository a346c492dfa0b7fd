/**
 * Wraps the client's fetch to see every HTTP request the service answers, retries included: the
 * client retries a 429 by itself, so only here can the loader count throttled answers honestly.
 */
import type { FetchLike } from '@feedpipe/broker-api';

export type RequestOutcome = 'ok' | 'throttled' | 'client_error' | 'server_error' | 'network';

export interface RequestCounts {
  total: number;
  throttled: number;
}

/** The last path segments after /v2, e.g. `charts/intraday` -> `intraday`. */
export function endpointOf(url: string): string {
  const path = new URL(url).pathname;
  const at = path.indexOf('/v2/');
  const rest = at >= 0 ? path.slice(at + 4) : path;
  return rest.replace(/^charts\//, '').replace('/', '_') || 'unknown';
}

export function countingFetch(
  inner: FetchLike,
  onAnswer: (endpoint: string, outcome: RequestOutcome) => void,
): FetchLike {
  return async (url, init) => {
    const endpoint = endpointOf(url);
    try {
      const response = await inner(url, init);
      const s = response.status;
      onAnswer(
        endpoint,
        s === 429 ? 'throttled' : s >= 500 ? 'server_error' : s >= 400 ? 'client_error' : 'ok',
      );
      return response;
    } catch (error) {
      onAnswer(endpoint, 'network');
      throw error;
    }
  };
}
