/**
 * Loopback source addresses for the flood benchmark. Linux routes all of 127.0.0.0/8 to loopback,
 * so a flood can come from many addresses without leaving the machine: the services' per-address
 * limits then see many clients, and the benchmark's own probes, from 127.0.0.1, are not one of them.
 */

/** Distinct flood addresses available (127.1.0.1 .. 127.1.255.250). */
export const MAX_FLOOD_ADDRESSES = 256 * 250;

/** The i-th flood address (i modulo MAX_FLOOD_ADDRESSES): 127.1.<i / 250>.<i % 250 + 1>. */
export function floodAddress(i: number): string {
  const n = i % MAX_FLOOD_ADDRESSES;
  return `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;
}
