import { CodecError } from '../errors.js';

// DataView setters wrap or truncate out-of-range values silently; these checks turn such values into
// a coded error instead, so an encoded packet always decodes back to the numbers that were given.

export function checkUint8(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xff) {
    throw new CodecError('INVALID_RECORD', `${name} must be an integer in 0..255, got ${String(value)}`);
  }
}

export function checkInt32(name: string, value: number): void {
  if ((value | 0) !== value) {
    throw new CodecError(
      'INVALID_RECORD',
      `${name} must be an integer in -2147483648..2147483647, got ${String(value)}`,
    );
  }
}

export function checkInt16(name: string, value: number): void {
  if (!Number.isInteger(value) || value < -0x8000 || value > 0x7fff) {
    throw new CodecError(
      'INVALID_RECORD',
      `${name} must be an integer in -32768..32767, got ${String(value)}`,
    );
  }
}

/** Any number is a valid float32 input (it is rounded with Math.fround); only non-numbers are refused. */
export function checkFloat(name: string, value: number): void {
  if (typeof value !== 'number') {
    throw new CodecError('INVALID_RECORD', `${name} must be a number, got ${typeof value}`);
  }
}
