/** Builds the credentials component of a process from its configuration (credentialsConfigFromEnv). */
import { BrokerClient } from '@feedpipe/broker-api';
import type { Registry } from 'prom-client';
import type { CredentialsConfig } from './config.js';
import { Credentials } from './credentials.js';
import { FileIssuer } from './sources/file-issuer.js';
import type { TokenIssuer } from './sources/issuer.js';
import { StaticIssuer } from './sources/static-issuer.js';
import { TotpIssuer } from './sources/totp-issuer.js';
import { WebIssuer } from './sources/web-issuer.js';

export interface CreateCredentialsDeps {
  registry?: Registry;
  log?: (message: string) => void;
}

/** The REST client the token endpoints are called with: no token of its own, auth URL for TOTP. */
function authClient(config: CredentialsConfig): BrokerClient {
  const baseUrl = config.baseUrl ?? config.authUrl ?? 'http://127.0.0.1:1';
  return new BrokerClient({
    baseUrl,
    clientId: config.clientId,
    ...(config.authUrl === undefined ? {} : { authUrl: config.authUrl }),
  });
}

export function issuerFor(config: CredentialsConfig): TokenIssuer {
  switch (config.source) {
    case 'static':
      return new StaticIssuer(config.accessToken as string);
    case 'web':
      return new WebIssuer(config.accessToken as string, config.clientId, authClient(config));
    case 'totp':
      return new TotpIssuer({
        clientId: config.clientId,
        pin: config.pin as string,
        totpSecret: config.totpSecret as string,
        client: authClient(config),
        skewMs: config.totpSkewMs,
      });
    case 'file':
      // A refused token waits this long for the operator's tooling to put a new one in the file.
      return new FileIssuer(config.tokenFile as string, { waitMs: 60_000, pollMs: config.pollMs });
  }
}

/** A started component: the first token is in hand when this resolves. */
export async function startCredentials(
  config: CredentialsConfig,
  deps: CreateCredentialsDeps = {},
): Promise<Credentials> {
  const credentials = new Credentials({ config, issuer: issuerFor(config), ...deps });
  await credentials.start();
  return credentials;
}
