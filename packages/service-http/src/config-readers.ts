/**
 * Readers that validate an options object once, at construction: each names the key and what is
 * allowed, so a bad configuration fails with a message that says how to fix it.
 */
import { HttpError } from './http-error.js';

export type Options = Record<string, unknown>;

function fail(where: string, message: string): never {
  throw new HttpError('CONFIG_INVALID', `${where}: ${message}`);
}

export function section(value: unknown, where: string, allowed: readonly string[]): Options {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(where, `unknown option "${key}" (allowed: ${allowed.join(', ')})`);
  }
  return value as Options;
}

export function int(
  o: Options,
  key: string,
  where: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(where, `"${key}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function num(o: Options, key: string, where: string, fallback: number, min: number): number {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    fail(where, `"${key}" must be a finite number >= ${min}`);
  }
  return value;
}

export function bool(o: Options, key: string, where: string, fallback: boolean): boolean {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(where, `"${key}" must be a boolean`);
  return value;
}

export function str(o: Options, key: string, where: string, fallback: string): string {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) fail(where, `"${key}" must be a non-empty string`);
  return value;
}

export function oneOf<T extends string>(
  o: Options,
  key: string,
  where: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = o[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    fail(where, `"${key}" must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}
