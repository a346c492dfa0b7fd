/**
 * One process of an account for the shared-renewal test: credentials from the environment (as a
 * service reads them), a REST call every 250 ms through them, and one JSON line per event on stdout
 * (token changes as hashes, never tokens). Bounded: exits after CHILD_MAX_MS.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { credentialsConfigFromEnv, startCredentials, tokenHash } from '../../src/index.js';

const emit = (o: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ pid: process.pid, at: Date.now(), ...o })}\n`);
};
const env = process.env;
const config = credentialsConfigFromEnv(env, env.SVC_CLIENT_ID ?? '');
const creds = await startCredentials(config, { log: (message) => emit({ event: 'log', message }) });
const short = (t: string) => tokenHash(t).slice(0, 16);
emit({ event: 'started', role: creds.status().role, hash: short(await creds.getToken()) });
creds.onChange((t) => emit({ event: 'token', role: creds.status().role, hash: short(t) }));
const client = new BrokerClient({
  baseUrl: env.SVC_BASE_URL ?? '',
  clientId: config.clientId,
  accessToken: creds,
  maxRetries: 0,
});
let role = creds.status().role;
const deadline = Date.now() + Number(env.CHILD_MAX_MS ?? 180_000);
const timer = setInterval(async () => {
  if (Date.now() > deadline) process.exit(3);
  if (creds.status().role !== role) {
    role = creds.status().role;
    emit({ event: 'role', role });
  }
  try {
    await client.account.profile();
    emit({ event: 'call', ok: true, role });
  } catch (error) {
    emit({ event: 'call', ok: false, role, error: (error as Error).message });
  }
}, 250);
process.on('SIGTERM', () => {
  clearInterval(timer);
  void creds.stop().then(() => process.exit(0));
});
