/**
 * Seeded, order-independent randomness. Every value is a pure function of integer keys (seed,
 * security id, day, ...), so any day of any instrument can be generated on its own, in any order,
 * and always comes out the same. Never Math.random.
 */
import { mix32, nextUnit } from '../market/prng.js';

/** A uint32 from any number of integer keys. */
export function hashKeys(...keys: number[]): number {
  let h = 0x9e3779b9;
  for (const k of keys) {
    h = mix32(h ^ mix32((k | 0) ^ Math.floor(k / 2 ** 32)));
    h = (h + 0x6a09e667) >>> 0;
  }
  return mix32(h);
}

/** A uniform in [0, 1) from integer keys. */
export function uniformOf(...keys: number[]): number {
  return hashKeys(...keys) / 2 ** 32;
}

/** mulberry32 (the market model's step): a fast sequential generator for the many draws of one day. */
export class Rng {
  private readonly state: Uint32Array;
  constructor(seed: number) {
    this.state = Uint32Array.of(seed >>> 0);
  }
  next(): number {
    return nextUnit(this.state, 0);
  }
  /** Standard normal (Box-Muller; the second value is dropped for simplicity). */
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}
