/**
 * Who may post. The spec defines no signature for postbacks, so the receiver checks a shared
 * secret and, optionally, the source address against an allowlist. The secret comes, best first,
 * as an HMAC-SHA256 of the body (`x-postback-signature: sha256=<hex>`: the secret never travels),
 * in the `x-postback-secret` header, or in the URL path (all the service itself can be given).
 * Comparisons run in constant time over sha256 digests (equal lengths, so they leak neither
 * content nor length).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { configError } from './errors.js';

export const SECRET_HEADER = 'x-postback-secret';
export const SIGNATURE_HEADER = 'x-postback-signature';

export function parseAllowlist(entries: readonly string[]): BlockList {
  if (!Array.isArray(entries)) throw configError('allowlist must be an array of IPs or CIDRs');
  const list = new BlockList();
  for (const entry of entries) {
    if (typeof entry !== 'string') throw configError('allowlist entries must be strings');
    const [address = '', bits, extra] = entry.trim().split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined)
      throw configError(`allowlist entry "${entry}" is not an IP or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) {
      throw configError(`allowlist entry "${entry}" has a bad prefix length`);
    }
    list.addSubnet(address, prefix, type);
  }
  return list;
}

/** True when `ip` (as the socket reports it) is on the list. */
export function sourceAllowed(list: BlockList, ip: string): boolean {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(plain);
  if (family === 0) return false;
  return list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export function secretMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined || presented === '') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}

/** `sha256=<hex>` of HMAC-SHA256(secret, body), as a relay computes it. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signatureMatches(secret: string, body: string, presented: string | undefined): boolean {
  if (presented === undefined || presented === '') return false;
  const a = createHash('sha256').update(signBody(secret, body)).digest();
  const b = createHash('sha256').update(presented.trim().toLowerCase()).digest();
  return timingSafeEqual(a, b);
}
