import { createHmac } from 'node:crypto';
import { invalidArgument } from '../core/errors.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (the form authenticator apps show); case, spaces and padding are ignored. */
export function base32Decode(text: string): Uint8Array {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out = new Uint8Array(Math.floor((clean.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (const ch of clean) {
    const value = BASE32.indexOf(ch);
    if (value < 0) throw invalidArgument('TOTP secret is not valid base32');
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >>> bits) & 0xff;
    }
  }
  return out;
}

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

export interface TotpOptions {
  /** Epoch ms; default Date.now(). */
  time?: number;
  /** Default 6 (the service's codes); the RFC's test vectors use 8. */
  digits?: number;
  /** Seconds per code; default 30. */
  period?: number;
  /** Default sha1. */
  algorithm?: TotpAlgorithm;
}

/**
 * HOTP (RFC 4226): HMAC of the 8-byte big-endian counter, dynamic truncation to 31 bits, modulo
 * 10^digits, left-padded with zeros.
 */
export function hotp(
  key: Uint8Array,
  counter: number,
  digits = 6,
  algorithm: TotpAlgorithm = 'sha1',
): string {
  if (!Number.isInteger(digits) || digits < 6 || digits > 10) throw invalidArgument('digits must be 6 to 10');
  const message = Buffer.alloc(8);
  // Counters beyond 2^32 occur (RFC 6238 tests year 2603); split into two 32-bit halves.
  message.writeUInt32BE(Math.floor(counter / 2 ** 32), 0);
  message.writeUInt32BE(counter >>> 0, 4);
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return (binary % 10 ** digits).toString().padStart(digits, '0');
}

/**
 * TOTP (RFC 6238) code for a secret given as bytes or as base32 text. The code is a secret
 * itself: never log it.
 */
export function totp(secret: Uint8Array | string, options: TotpOptions = {}): string {
  const key = typeof secret === 'string' ? base32Decode(secret) : secret;
  if (key.length === 0) throw invalidArgument('TOTP secret is empty');
  const period = options.period ?? 30;
  const time = options.time ?? Date.now();
  const counter = Math.floor(time / 1000 / period);
  return hotp(key, counter, options.digits ?? 6, options.algorithm ?? 'sha1');
}
