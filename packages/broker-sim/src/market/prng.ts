/**
 * Seeded randomness for the market model. Never `Math.random`: every value the simulator emits must
 * be a function of the seed so two runs can be compared byte for byte.
 *
 * Each instrument owns one 32-bit mulberry32 state (a slot of a `Uint32Array`), so the n-th trade of
 * an instrument depends only on (seed, security id, n): subscribing to other instruments, or other
 * connections, never shifts its stream.
 */

/** murmur3's 32-bit finaliser: a cheap avalanche mix for deriving independent streams from ids. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of (seed, id, salt); the salt separates unrelated attributes of one instrument. */
export function hash3(seed: number, id: number, salt: number): number {
  return mix32(mix32(mix32(seed ^ 0x9e3779b9) ^ id) + Math.imul(salt, 0x27d4eb2f));
}

/** The same hash scaled to [0, 1). */
export function unit3(seed: number, id: number, salt: number): number {
  return hash3(seed, id, salt) / 4294967296;
}

/**
 * Advances the mulberry32 state stored at `states[slot]` and returns a float in [0, 1).
 * Kept as a free function over a typed array (not an object per instrument) so 30 000 instruments
 * cost 120 KB and the hot path allocates nothing.
 */
export function nextUnit(states: Uint32Array, slot: number): number {
  return nextUint32(states, slot) / 4294967296;
}

/** The same step returning the raw 32 bits, for callers that split one draw into several fields. */
export function nextUint32(states: Uint32Array, slot: number): number {
  const a = ((states[slot] ?? 0) + 0x6d2b79f5) >>> 0;
  states[slot] = a;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return (t ^ (t >>> 14)) >>> 0;
}
