/**
 * Who may post. The spec defines no signature for postbacks, so the receiver checks a shared
 * secret (in the URL path, since a URL is all the service is given, or in a header) and,
 * optionally, the source address against an allowlist. The secret is compared in constant time
 * over its sha256 (equal lengths, so the comparison leaks neither content nor length).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { configError } from './errors.js';

export const SECRET_HEADER = 'x-postback-secret';

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
