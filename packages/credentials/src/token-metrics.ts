/**
 * What an operator asks first about the token: how long until it expires, whether this process can
 * renew it, whether renewals succeed, and which process holds the shared renewal. The only label is
 * the source kind; no metric ever carries a token or a client's secret.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface TokenMetrics {
  renewed(result: 'ok' | 'failed'): void;
  setOwner(owner: boolean): void;
}

export interface TokenView {
  expiresAt(): number | undefined;
  renewable(): boolean;
}

export const TOKEN_METRIC_NAMES = {
  expiry: 'feedpipe_token_expiry_seconds',
  renewable: 'feedpipe_token_renewable',
  renewals: 'feedpipe_token_renewals_total',
  owner: 'feedpipe_token_renewal_owner',
} as const;

/** Registers the metrics on `registry` (once per registry: one credentials component per process). */
export function createTokenMetrics(
  registry: Registry | undefined,
  source: string,
  view: TokenView,
): TokenMetrics {
  if (registry === undefined || registry.getSingleMetric(TOKEN_METRIC_NAMES.expiry) !== undefined) {
    return { renewed: () => undefined, setOwner: () => undefined };
  }
  const labels = { source };
  new Gauge({
    name: TOKEN_METRIC_NAMES.expiry,
    help: 'Seconds until the access token in use expires (negative: expired)',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      const at = view.expiresAt();
      if (at !== undefined) this.set(labels, Math.round((at - Date.now()) / 1000));
    },
  });
  new Gauge({
    name: TOKEN_METRIC_NAMES.renewable,
    help: '1 when the token source can replace the token before it expires (web, totp, file), 0 for a static token',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.set(labels, view.renewable() ? 1 : 0);
    },
  });
  const renewals = new Counter({
    name: TOKEN_METRIC_NAMES.renewals,
    help: 'Token renewals (RenewToken, generateAccessToken, a new token file) by this process, by result',
    labelNames: ['source', 'result'],
    registers: [registry],
  });
  renewals.inc({ source, result: 'ok' }, 0);
  renewals.inc({ source, result: 'failed' }, 0);
  const owner = new Gauge({
    name: TOKEN_METRIC_NAMES.owner,
    help: '1 when this process renews the token (it holds the shared lease, or shares with no one)',
    labelNames: ['source'],
    registers: [registry],
  });
  return {
    renewed: (result) => renewals.inc({ source, result }),
    setOwner: (value) => owner.set(labels, value ? 1 : 0),
  };
}
