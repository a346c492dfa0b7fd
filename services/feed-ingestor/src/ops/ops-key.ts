/**
 * The ingestor's ops key: the one secret that lets an operator change subscriptions while the
 * ingestor runs (INGESTOR_OPS_KEY, or INGESTOR_OPS_KEY_FILE for a compose secret). Like the query
 * API's admin key it is presented in `x-api-key` (or `Authorization: Bearer`); it is compared as
 * digests in constant time, and never logged, echoed or put in a metric label.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { IngestorError } from '../errors.js';

/** Long enough that guessing it over a port is hopeless (no throttle is needed on top). */
export const MIN_OPS_KEY_LENGTH = 24;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export class OpsKey {
  readonly #digest: Buffer;

  constructor(key: string) {
    if (key.length < MIN_OPS_KEY_LENGTH || /\s/.test(key)) {
      throw new IngestorError(
        'CONFIG_INVALID',
        `the ops key must be at least ${MIN_OPS_KEY_LENGTH} characters without spaces (e.g. openssl rand -hex 24)`,
      );
    }
    this.#digest = digest(key);
  }

  /** Whether the request presents the key. */
  admits(headers: IncomingHttpHeaders): boolean {
    const header = headers['x-api-key'];
    const bearer = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
    const presented = typeof header === 'string' ? header : bearer;
    return presented !== undefined && timingSafeEqual(digest(presented), this.#digest);
  }
}
