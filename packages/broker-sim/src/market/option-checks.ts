import { SimError } from './errors.js';

/**
 * Construction-time validation of option objects: unknown keys are rejected (a typo must not silently
 * fall back to a default) and every bad value names the key and what is allowed.
 */
export function rejectUnknownKeys(where: string, options: object, allowed: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new SimError(
        'INVALID_OPTION',
        `${where}: unknown option "${key}" (allowed: ${allowed.join(', ')})`,
      );
    }
  }
}

/**
 * Builds a reader of an optional number in [min, max] that also passes `accepts` (whole numbers,
 * or any finite one); `what` names the kind in the error.
 */
function rangedNumberOption(accepts: (n: number) => boolean, what: string) {
  return (where: string, key: string, value: unknown, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !accepts(value) || value < min || value > max) {
      throw new SimError('INVALID_OPTION', `${where}: "${key}" must be ${what} in [${min}, ${max}]`);
    }
    return value;
  };
}

export const integerOption = rangedNumberOption(Number.isInteger, 'an integer');
export const numberOption = rangedNumberOption(Number.isFinite, 'a number');

export function functionOption<T extends (...args: never[]) => unknown>(
  where: string,
  key: string,
  value: unknown,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') {
    throw new SimError('INVALID_OPTION', `${where}: "${key}" must be a function`);
  }
  return value as T;
}

export function objectOption(
  where: string,
  key: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SimError('INVALID_OPTION', `${where}: "${key}" must be an object`);
  }
  return value as Record<string, unknown>;
}
