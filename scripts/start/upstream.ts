/**
 * The upstream service for `npm start`: the real one by URL (SVC_FEED_URL, SVC_CLIENT_ID and a token
 * source), or the simulator (REST + feed over one market model) with its test account, whose token
 * comes from the account's PIN and TOTP secret. Then the token source both share, renewed ahead of
 * expiry.
 */
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '@feedpipe/broker-sim';
import {
  type Credentials,
  type CredentialsConfig,
  credentialsConfigFromEnv,
  startCredentials,
} from '@feedpipe/credentials';
import { type FeedCredentials, loadIngestorEnv } from '@feedpipe/feed-ingestor';
import type { Registry } from 'prom-client';
import { keepSecretsOf, log } from './log.js';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';

export interface Upstream {
  feedUrl: string;
  /** The token is filled in by `startTokens`. */
  credentials: FeedCredentials;
  tokenConfig: CredentialsConfig;
  /** The simulator, when it is the upstream. */
  sim: Simulator | undefined;
  /** Trade subscriptions: the universe file's, or the simulator's first INX_EQ instruments. */
  instruments: string[];
  /** REST `{base_url}` and `{auth_url}`, where known. */
  baseUrl: string | undefined;
  authUrl: string | undefined;
}

export async function startUpstream(brokers: string[], env: StartEnv): Promise<Upstream> {
  return env.SVC_FEED_URL ? realService(brokers, env) : await simulator(env);
}

function realService(brokers: string[], env: StartEnv): Upstream {
  // The same validation as `feed-ingestor run`, with the brokers this runner already has.
  const config = loadIngestorEnv({ ...process.env, KAFKA_BROKERS: brokers.join(',') });
  if (config.tradeInstruments.length === 0) throw new Error('UNIVERSE_FILE is required with SVC_FEED_URL');
  return {
    feedUrl: config.feedUrl,
    credentials: config.credentials,
    tokenConfig: config.tokens,
    sim: undefined,
    instruments: config.tradeInstruments,
    baseUrl: env.SVC_BASE_URL,
    authUrl: env.SVC_AUTH_URL,
  };
}

async function simulator(env: StartEnv): Promise<Upstream> {
  log('starting the simulator...');
  const lifetimeS = env.SIM_TOKEN_LIFETIME_S;
  // One token per account, as the service keeps it: a renewal ends the previous token at once.
  const sim = await createSimulator({
    seed: 1,
    feed: { port: 0, tradesPerSecond: 2, tickIntervalMs: 100 },
    rest: restServerHook({ port: 0, tokenLifetimeMs: lifetimeS * 1000, oneTokenPerAccount: true }),
  });
  onExit('simulator', () => sim.close());
  const account = SIM_TEST_ACCOUNTS[0];
  if (!account) throw new Error('the simulator has no test account');
  // The TOTP source, as a long unattended run would use it: PIN + TOTP secret -> a new token
  // ahead of each expiry (the SVC_TOKEN_* timing variables apply).
  const tokenConfig = credentialsConfigFromEnv(
    {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^SVC_(TOKEN|TOTP_SKEW)/.test(k))),
      SVC_TOKEN_SOURCE: 'totp',
      SVC_PIN: account.pin,
      SVC_TOTP_SECRET: account.totpSecret,
      SVC_AUTH_URL: sim.rest?.authUrl,
      SVC_BASE_URL: sim.rest?.baseUrl,
    },
    account.clientId,
  );
  return {
    feedUrl: sim.feed.url,
    credentials: { clientId: account.clientId, token: '', authType: 2 },
    tokenConfig,
    sim,
    instruments: sim.model.universe
      .filter((i) => i.exchangeSegment === 'INX_EQ')
      .slice(0, env.DEMO_INSTRUMENTS)
      .map((i) => String(i.securityId)),
    baseUrl: sim.rest?.baseUrl ?? env.SVC_BASE_URL,
    authUrl: sim.rest?.authUrl ?? env.SVC_AUTH_URL,
  };
}

/**
 * The account's token source, started: every feed (re)connect and REST call asks it for the token,
 * and a refused token (807) renews. Its current and recent tokens are scrubbed from every log line.
 */
export async function startTokens(
  upstream: Upstream,
  registry: Registry,
): Promise<{ tokens: Credentials; credentials: FeedCredentials }> {
  const tokens = await startCredentials(upstream.tokenConfig, { registry, log });
  keepSecretsOf(() => tokens.secrets());
  onExit('credentials', () => tokens.stop());
  return { tokens, credentials: { ...upstream.credentials, token: tokens } };
}
