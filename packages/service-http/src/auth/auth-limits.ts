/** The auth hook's limits (per key, per address, per key id's wrong secrets) from a service's configuration. */
import type { ResolvedHttpServiceConfig } from '../http-service-config.js';
import { AddressGate } from './address-gate.js';
import type { AuthLimits } from './auth-hook.js';
import { KeyRateLimiter } from './rate-limiter.js';
import { SecretThrottle } from './secret-throttle.js';

export function createAuthLimits(
  config: Pick<ResolvedHttpServiceConfig, 'rateLimit' | 'addressLimit' | 'failedSecrets'>,
  now: () => number = Date.now,
): AuthLimits {
  return {
    perKey: new KeyRateLimiter(config.rateLimit.perSecond, config.rateLimit.burst, now),
    perAddress: new AddressGate({ ...config.addressLimit, now }),
    secrets: new SecretThrottle({ ...config.failedSecrets, now }),
  };
}
