// Public surface of @feedpipe/retry: one backoff and one retry loop for the whole project, so every
// reconnect, admin step and insert retry is paced alike (jitter, a cap, a bounded count).

export { Backoff, type BackoffOptions } from './backoff.js';
export { type RetryOptions, retry, sleep } from './retry.js';
