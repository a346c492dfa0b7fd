/**
 * `web`: a token issued from the web console, renewed with RenewToken ahead of expiry. RenewToken
 * works only while the token is active and ends it at once (spec, Authentication 3), so a renewal is
 * attempted well before expiry and the result replaces the old token everywhere immediately.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { CredentialsError } from '../errors.js';
import { expiryOf, type IssuedToken, type TokenIssuer } from './issuer.js';

export class WebIssuer implements TokenIssuer {
  readonly kind = 'web' as const;
  readonly canRenew = true;
  readonly #first: string;
  readonly #client: BrokerClient;
  readonly #clientId: string;

  constructor(accessToken: string, clientId: string, client: BrokerClient) {
    this.#first = accessToken;
    this.#clientId = clientId;
    this.#client = client;
  }

  async first(): Promise<IssuedToken> {
    return { accessToken: this.#first, expiresAt: expiryOf(this.#first, undefined, Date.now()) };
  }

  async next(current: IssuedToken): Promise<IssuedToken> {
    try {
      const renewed = await this.#client.auth.renewToken(current.accessToken, this.#clientId);
      return {
        accessToken: renewed.accessToken,
        expiresAt: expiryOf(renewed.accessToken, renewed.expiresAt, Date.now()),
      };
    } catch (error) {
      // The client's message is already free of the token; say what to do when it is dead.
      const refused = (error as { status?: number }).status === 401;
      throw new CredentialsError(
        'RENEWAL_FAILED',
        refused
          ? 'RenewToken refused the web-console token (expired or replaced): generate a new one in the web console and put it in SVC_ACCESS_TOKEN'
          : `RenewToken failed: ${(error as Error).message}`,
        { cause: error, retryable: !refused },
      );
    }
  }
}
