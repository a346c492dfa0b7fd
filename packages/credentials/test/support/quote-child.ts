/**
 * One process of an account asking for quotes as fast as its limiter allows, for rate-slots.test.ts:
 * the limiter shares the quote slots through SHARE_DIR (FileRateSlots), as the quote poller and the
 * trading gateway do. Every answer the service gave is counted (the client retries a 429 by itself,
 * so only its fetch sees each one); the last stdout line is {"requests":..,"throttled":..}.
 */
import { BrokerClient, isBrokerApiError, sharedQuoteLimiter } from '@feedpipe/broker-api';
import { FileRateSlots } from '../../src/index.js';

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`quote-child: ${name} is unset`);
  return value;
}

const clientId = env('CLIENT_ID');
const seconds = Number(env('SECONDS'));
const slots = new FileRateSlots(env('SHARE_DIR'), clientId, ['quote']);
let requests = 0;
let throttled = 0;
const client = new BrokerClient({
  baseUrl: env('SIM_URL'),
  clientId,
  accessToken: env('TOKEN'),
  rateLimiter: sharedQuoteLimiter(Number(env('MARGIN_MS')), slots),
  fetch: async (url, init) => {
    const response = await fetch(url, init);
    requests += 1;
    if (response.status === 429) throttled += 1;
    return response;
  },
});
const started = Date.now();
// Bounded by time and by count: at 1 request a second no more than `seconds` + 1 can be granted.
for (let i = 0; i < seconds * 10 && Date.now() - started < seconds * 1000; i++) {
  try {
    await client.marketData.quote({ NSE_EQ: [2885] });
  } catch (error) {
    // Throttled past the client's retries: already counted; anything else ends the run.
    if (!isBrokerApiError(error) || error.code !== 'RATE_LIMITED') throw error;
  }
}
process.stdout.write(`${JSON.stringify({ requests, throttled })}\n`);
