import { invalidArgument } from './errors.js';

/**
 * Small readers for validating option objects once, at construction. Each names the key and what
 * is allowed, so a bad configuration fails with a message that says how to fix it.
 */

export function asRecord(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

export function rejectUnknownKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw invalidArgument(`${where}: unknown option "${key}" (allowed: ${allowed.join(', ')})`);
    }
  }
}

export function readString(
  record: Record<string, unknown>,
  key: string,
  where: string,
  fallback?: string,
): string {
  const value = record[key];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) {
    throw invalidArgument(`${where}: "${key}" must be a non-empty string`);
  }
  return value;
}

export function readOptionalString(
  record: Record<string, unknown>,
  key: string,
  where: string,
): string | undefined {
  if (record[key] === undefined) return undefined;
  return readString(record, key, where);
}

export function readUrl(record: Record<string, unknown>, key: string, where: string): string {
  const value = readString(record, key, where);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument(`${where}: "${key}" must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidArgument(`${where}: "${key}" must be an absolute http(s) URL`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw invalidArgument(`${where}: "${key}" must not carry a query or fragment`);
  }
  // Trailing slashes would double up with the paths appended later.
  return value.replace(/\/+$/, '');
}

export function readInt(
  record: Record<string, unknown>,
  key: string,
  where: string,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = record[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(`${where}: "${key}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function readBoolean(
  record: Record<string, unknown>,
  key: string,
  where: string,
  fallback: boolean,
): boolean {
  const value = record[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(`${where}: "${key}" must be a boolean`);
  return value;
}

export function readEnum<T extends string>(
  record: Record<string, unknown>,
  key: string,
  where: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = record[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidArgument(`${where}: "${key}" must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

export function readFunction<T>(record: Record<string, unknown>, key: string, where: string): T | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw invalidArgument(`${where}: "${key}" must be a function`);
  return value as T;
}
