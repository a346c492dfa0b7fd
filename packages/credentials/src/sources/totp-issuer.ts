/**
 * `totp`: a new token from client id + PIN + TOTP (POST {auth_url}/app/generateAccessToken) ahead of
 * expiry or after a refusal. Clock skew: the service accepts the adjacent step, SVC_TOTP_SKEW_S
 * corrects a known offset, codes are never made at a step's end nor reused, and a refused code is
 * tried once more with the next step's code.
 */
import { type BrokerClient, type Clock, systemClock, totp } from '@feedpipe/broker-api';
import { CredentialsError } from '../errors.js';
import { expiryOf, type IssuedToken, type TokenIssuer } from './issuer.js';
import { codeTime, TOTP_STEP_MS } from './totp-timing.js';

export interface TotpIssuerOptions {
  clientId: string;
  pin: string;
  totpSecret: string;
  client: BrokerClient;
  skewMs: number;
  clock?: Clock;
}

export class TotpIssuer implements TokenIssuer {
  readonly kind = 'totp' as const;
  readonly canRenew = true;
  readonly #o: TotpIssuerOptions;
  readonly #clock: Clock;
  #lastStep = -1;

  constructor(options: TotpIssuerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  first(): Promise<IssuedToken> {
    return this.#generate();
  }

  next(): Promise<IssuedToken> {
    return this.#generate();
  }

  async #generate(): Promise<IssuedToken> {
    try {
      return await this.#attempt();
    } catch (error) {
      if ((error as { status?: number }).status !== 401) throw this.#failure(error);
    }
    // Refused: the code may have been judged in another step than it was made in. Once more.
    try {
      return await this.#attempt();
    } catch (error) {
      throw this.#failure(error);
    }
  }

  async #attempt(): Promise<IssuedToken> {
    const { waitMs, step } = codeTime(this.#clock.now() + this.#o.skewMs, this.#lastStep);
    if (waitMs > 0) await this.#clock.sleep(waitMs);
    this.#lastStep = step;
    const code = totp(this.#o.totpSecret, { time: step * TOTP_STEP_MS + 1 });
    const grant = await this.#o.client.auth.generateToken({
      svcClientId: this.#o.clientId,
      pin: this.#o.pin,
      totp: code,
    });
    const held = this.#o.client.auth.held(grant);
    return {
      accessToken: held.accessToken,
      expiresAt: expiryOf(held.accessToken, held.expiresAt, this.#clock.now()),
    };
  }

  #failure(error: unknown): CredentialsError {
    const refused = (error as { status?: number }).status === 401;
    return new CredentialsError(
      'RENEWAL_FAILED',
      refused
        ? 'generateAccessToken refused the client id, PIN or TOTP code: check SVC_PIN, SVC_TOTP_SECRET (rotated in the web console?) and the clock (SVC_TOTP_SKEW_S)'
        : `generateAccessToken failed: ${(error as Error).message}`,
      { cause: error, retryable: !refused },
    );
  }
}
