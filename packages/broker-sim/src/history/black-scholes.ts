/**
 * Black-Scholes prices and greeks, and the volatility smile the simulator quotes. Price, IV and
 * greeks all come from the same (S, K, T, r, sigma), so they are mutually consistent: delta is the
 * derivative of the price in spot, vega in volatility (per 1 vol point), theta in time (per
 * calendar day), gamma the derivative of delta.
 */
export const RISK_FREE_RATE = 0.065;

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 via erf; absolute error below 1.5e-7). */
export function normCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

export function normPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

export interface OptionValue {
  price: number;
  delta: number;
  gamma: number;
  /** Per calendar day. */
  theta: number;
  /** Per 1 volatility point (0.01). */
  vega: number;
}

export function blackScholes(
  call: boolean,
  s: number,
  k: number,
  t: number,
  sigma: number,
  r = RISK_FREE_RATE,
): OptionValue {
  const sqrtT = Math.sqrt(t);
  const d1 = (Math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrtT);
  const d2 = d1 - sigma * sqrtT;
  const disc = Math.exp(-r * t);
  const pdf = normPdf(d1);
  const decay = (-s * pdf * sigma) / (2 * sqrtT);
  if (call) {
    return {
      price: s * normCdf(d1) - k * disc * normCdf(d2),
      delta: normCdf(d1),
      gamma: pdf / (s * sigma * sqrtT),
      theta: (decay - r * k * disc * normCdf(d2)) / 365,
      vega: (s * pdf * sqrtT) / 100,
    };
  }
  return {
    price: k * disc * normCdf(-d2) - s * normCdf(-d1),
    delta: normCdf(d1) - 1,
    gamma: pdf / (s * sigma * sqrtT),
    theta: (decay + r * k * disc * normCdf(-d2)) / 365,
    vega: (s * pdf * sqrtT) / 100,
  };
}

/**
 * Implied volatility as a function of moneyness: a skew (lower strikes richer, as in index
 * options) and a curvature, on standardised moneyness ln(K/S) / (atmVol * sqrt(T)).
 */
export function smileVol(atmVol: number, s: number, k: number, t: number): number {
  const m = Math.max(-4, Math.min(4, Math.log(k / s) / (atmVol * Math.sqrt(t))));
  return Math.max(0.05, atmVol * (1 - 0.06 * m + 0.035 * m * m));
}

/** Volatility that reproduces `price` (bisection; bounded at 100 iterations). */
export function impliedVol(call: boolean, price: number, s: number, k: number, t: number): number {
  let lo = 0.001;
  let hi = 5;
  for (let i = 0; i < 100 && hi - lo > 1e-7; i++) {
    const mid = (lo + hi) / 2;
    if (blackScholes(call, s, k, t, mid).price > price) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}
