/**
 * Account seeds: who can log in to the simulator and how each account starts. The defaults are the
 * documented test credentials (see SIM_TEST_ACCOUNTS); they are test fixtures, not secrets.
 */
import { issueWebToken } from '../rest/tokens.js';

export interface SimAccountSeed {
  readonly clientId: string;
  readonly clientName: string;
  /** 6 digits, checked by generateAccessToken and the browser login pages. */
  readonly pin: string;
  /** Base32 TOTP secret (RFC 6238, SHA-1, 6 digits, 30 s). */
  readonly totpSecret: string;
  /** A web-console token (renewable). Minted when the process loads the seeds; valid 24 h from then. */
  readonly webToken?: string;
  readonly dataPlan: boolean;
  /** DDPI: with it, CNC sells of holdings need no eDIS authorisation. Default false. */
  readonly ddpi?: boolean;
  readonly mtf?: boolean;
  readonly appId?: string;
  readonly appSecret?: string;
  /** Registered redirect URL of the API key and of the partner (the browser login redirects there). */
  readonly redirectUrl?: string;
  readonly partnerId?: string;
  readonly partnerSecret?: string;
  readonly staticIp?: { readonly primary?: string; readonly secondary?: string };
  /** Opening INR balance (sodLimit). Default 1,000,000. */
  readonly fundsInr?: number;
  /** Opening USD cash of the global-stocks account. Default 10,000. */
  readonly fundsUsd?: number;
}

export const SIM_TEST_ACCOUNTS: readonly SimAccountSeed[] = Object.freeze([
  Object.freeze({
    clientId: '1000000001',
    clientName: 'SIM TEST ONE',
    pin: '123456',
    totpSecret: 'JBSWY3DPEHPK3PXP',
    webToken: issueWebToken('1000000001', Date.now()),
    dataPlan: true,
    ddpi: true,
    mtf: false,
    appId: 'sim-app-1',
    appSecret: 'sim-app-secret-1',
    redirectUrl: 'http://127.0.0.1/callback',
    partnerId: 'sim-partner-1',
    partnerSecret: 'sim-partner-secret-1',
    staticIp: Object.freeze({ primary: '127.0.0.1' }),
    fundsInr: 1_000_000,
    fundsUsd: 10_000,
  }),
  Object.freeze({
    clientId: '1000000002',
    clientName: 'SIM TEST TWO',
    pin: '654321',
    totpSecret: 'KRSXG5CTMVRXEZLU',
    webToken: issueWebToken('1000000002', Date.now()),
    dataPlan: false,
    ddpi: false,
    mtf: false,
    appId: 'sim-app-2',
    appSecret: 'sim-app-secret-2',
    redirectUrl: 'http://127.0.0.1/callback2',
    fundsInr: 500_000,
    fundsUsd: 5_000,
  }),
]);
