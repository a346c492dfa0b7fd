/**
 * Seeded, order-independent randomness. Every value is a pure function of integer keys (seed,
 * security id, day, ...), so any day of any instrument can be generated on its own, in any order,
 * and always comes out the same. Never Math.random.
 */

/** 32-bit avalanche mix (a murmur3-style finaliser). */
function mix(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A uint32 from any number of integer keys. */
export function hashKeys(...keys: number[]): number {
  let h = 0x9e3779b9;
  for (const k of keys) {
    h = mix(h ^ mix((k | 0) ^ Math.floor(k / 2 ** 32)));
    h = (h + 0x6a09e667) >>> 0;
  }
  return mix(h);
}

/** A uniform in [0, 1) from integer keys. */
export function uniformOf(...keys: number[]): number {
  return hashKeys(...keys) / 2 ** 32;
}

/** mulberry32: a fast sequential generator for the many draws of one day. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Standard normal (Box-Muller; the second value is dropped for simplicity). */
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}
