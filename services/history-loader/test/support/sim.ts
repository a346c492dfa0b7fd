/** The REST simulator with its limits on, and the loader options that point at it. */
import { createRestServer, MarketModel, type RestServer, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import type { BrokerOptions } from '../../src/index.js';

export const SIM_SEED = 11;
const ACCOUNT = SIM_TEST_ACCOUNTS[0];

export interface TestSim {
  server: RestServer;
  broker: BrokerOptions;
  /** The test account's token (the loader's `accessToken` dep). */
  accessToken: string;
  close(): Promise<void>;
}

export async function startTestSim(options: { rateLimits?: boolean } = {}): Promise<TestSim> {
  if (ACCOUNT?.webToken === undefined) throw new Error('the simulator has no test account with a web token');
  const model = new MarketModel({ seed: SIM_SEED, instruments: 10 });
  const server = await createRestServer({ model, rateLimits: options.rateLimits ?? true });
  return {
    server,
    broker: { baseUrl: server.baseUrl, clientId: ACCOUNT.clientId },
    accessToken: ACCOUNT.webToken,
    close: () => server.close(),
  };
}
