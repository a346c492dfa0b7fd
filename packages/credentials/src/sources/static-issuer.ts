/** `static`: the configured token, used until it expires; nothing can renew it. */
import { type Clock, systemClock } from '@feedpipe/broker-api';
import { CredentialsError } from '../errors.js';
import { expiryOf, type IssuedToken, type TokenIssuer } from './issuer.js';

export class StaticIssuer implements TokenIssuer {
  readonly kind = 'static' as const;
  readonly canRenew = false;
  readonly #token: string;
  readonly #clock: Clock;

  constructor(accessToken: string, clock: Clock = systemClock) {
    this.#token = accessToken;
    this.#clock = clock;
  }

  async first(): Promise<IssuedToken> {
    return { accessToken: this.#token, expiresAt: expiryOf(this.#token, undefined, this.#clock.now()) };
  }

  async next(): Promise<IssuedToken> {
    throw new CredentialsError(
      'RENEWAL_FAILED',
      'a static token (SVC_TOKEN_SOURCE=static) cannot be renewed: put a new SVC_ACCESS_TOKEN in place and restart, or use the totp or web source',
      { retryable: false },
    );
  }
}
