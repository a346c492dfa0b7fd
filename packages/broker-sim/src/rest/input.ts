/**
 * Small readers for request fields. Bodies arrive as JSON or form-encoded (every value a string),
 * so numbers and booleans are accepted in both spellings; anything else is a DH-905 input error
 * naming the field.
 */
import { inputError } from './errors.js';

export type Fields = Record<string, unknown>;

/**
 * Marks a body parsed from `application/x-www-form-urlencoded`. A form carries an array as
 * repeated keys (`NSE_EQ=1&NSE_EQ=2`), so a one-element array arrives as a plain value
 * (`NSE_EQ=11536`, `isin=ALL`); `optArray` reads that back as an array for form bodies only, and
 * JSON bodies keep needing a real array.
 */
const FORM_BODY = Symbol('form-body');

/** Tags a parsed form body (non-enumerable, so it never shows up as a field). */
export function markFormBody<T extends object>(fields: T): T {
  Object.defineProperty(fields, FORM_BODY, { value: true, enumerable: false });
  return fields;
}

export function isFormBody(f: Fields): boolean {
  return (f as { [FORM_BODY]?: boolean })[FORM_BODY] === true;
}

/** An array field: a JSON array, or from a form body also a single value (a one-element array). */
export function optArray(f: Fields, key: string): unknown[] | undefined {
  const v = f[key];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && isFormBody(f)) return [v];
  throw inputError(`${key} must be an array`);
}

export function asFields(body: unknown, what = 'body'): Fields {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw inputError(`${what} must be a JSON object`);
  return body as Fields;
}

/** The fields the request named (defined ones only): a modification changes nothing else. */
export function namedFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

export function optString(f: Fields, key: string, max = 200): string | undefined {
  const v = f[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw inputError(`${key} must be a string`);
  if (v.length > max) throw inputError(`${key} must be at most ${max} characters`);
  return v;
}

export function reqString(f: Fields, key: string, max = 200): string {
  const v = optString(f, key, max);
  if (v === undefined) throw inputError(`${key} is required`);
  return v;
}

export function optNumber(f: Fields, key: string): number | undefined {
  const v = f[key];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw inputError(`${key} must be a number`);
  return n;
}

export function reqNumber(f: Fields, key: string): number {
  const v = optNumber(f, key);
  if (v === undefined) throw inputError(`${key} is required`);
  return v;
}

export function optInt(f: Fields, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = optNumber(f, key);
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw inputError(`${key} must be an integer between ${min} and ${max}`);
  }
  return v;
}

export function optBool(f: Fields, key: string): boolean | undefined {
  const v = f[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw inputError(`${key} must be true or false`);
}

export function optEnum<T extends string>(f: Fields, key: string, allowed: readonly T[]): T | undefined {
  const v = optString(f, key);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw inputError(`${key} must be one of ${allowed.join(', ')}`);
  }
  return v as T;
}

export function reqEnum<T extends string>(f: Fields, key: string, allowed: readonly T[]): T {
  const v = optEnum(f, key, allowed);
  if (v === undefined) throw inputError(`${key} is required (one of ${allowed.join(', ')})`);
  return v;
}

/** A security id given as string or number; must be a positive integer. */
export function reqSecurityId(f: Fields, key = 'securityId'): number {
  const s = reqString(f, key, 20);
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1)
    throw inputError(`${key} must be a positive integer id`);
  return n;
}

export function reqInt(f: Fields, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = optInt(f, key, min, max);
  if (v === undefined) throw inputError(`${key} is required`);
  return v;
}
