/**
 * API key wire form: `fpk_<key_id>_<secret>`. key_id (16 hex) finds the row; the secret (43
 * base64url characters = 256 random bits) is checked against sha256(salt || secret). High-entropy
 * secrets make a slow password hash unnecessary, and a fast one keeps every request cheap.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The scope that manages keys (create, list, revoke) while a service runs. Each service names its
 * other scopes (the query API `read`, the trading gateway `trade`); no scope implies another.
 */
export const ADMIN_SCOPE = 'admin';

const KEY_PATTERN = /^fpk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  keyId: string;
  secret: string;
}

export interface NewKeyMaterial {
  keyId: string;
  /** The full key, shown once to whoever created it and never stored. */
  key: string;
  salt: string;
  hash: string;
}

export function parseKey(presented: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  return { keyId: match[1] as string, secret: match[2] as string };
}

export function hashSecret(salt: string, secret: string): string {
  return createHash('sha256').update(salt).update(secret).digest('hex');
}

export function newKeyMaterial(): NewKeyMaterial {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const salt = randomBytes(16).toString('hex');
  return { keyId, key: `fpk_${keyId}_${secret}`, salt, hash: hashSecret(salt, secret) };
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(salt: string, storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashSecret(salt, secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
