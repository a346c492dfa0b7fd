/**
 * ClickHouse literals of typed parameter values, for binding in the statement text (see
 * inline-binding.ts). Every value is checked against its placeholder's type first (an integer in
 * range, a finite float, a UUID, a date...), and whatever text it carries goes out as ONE quoted
 * string literal with every character that could end or bend it escaped: a value can never become
 * SQL. Errors name the parameter and the type, never the value (values may be private).
 *
 * The shape follows the engine's own binding (ClickHouse's ReplaceQueryParameterVisitor): a String
 * is a plain string literal, every other type a literal converted with `_CAST(literal, 'Type')`,
 * so a bound statement means what the engine-bound one meant (same types, same index use).
 */
import { StoreError } from '../errors.js';
import type { QueryParam } from '../port.js';
import { type BindType, typeText } from './bind-type.js';

/**
 * Escapes inside a single-quoted ClickHouse string literal. The backslash (the escape introducer)
 * and the quote (the delimiter) are what could end the literal; NUL is escaped because the
 * statement crosses into C as a NUL-terminated string; the other control characters for a
 * readable, exact round trip.
 */
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const NEEDS_ESCAPE = /[\\'\0\b\f\n\r\t]/g;

/** A single-quoted ClickHouse string literal of `text`. */
export function stringLiteral(text: string): string {
  return `'${text.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] as string)}'`;
}

const INTEGER_TEXT = /^[+-]?[0-9]{1,80}$/;
const FLOAT_TEXT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const encoder = new TextEncoder();

class Refusal {
  constructor(readonly why: string) {}
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a Date';
  return `a ${typeof value}`;
}

function refuse(expected: string, value: unknown): never {
  throw new Refusal(`must be ${expected}, got ${describe(value)}`);
}

/** The literal of `value` for the placeholder `{name:type}`: see the file comment. */
export function literalFor(name: string, type: BindType, value: QueryParam): string {
  try {
    const inner = literal(type, value, false);
    return type.kind === 'string' ? inner : `_CAST(${inner}, ${stringLiteral(typeText(type))})`;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw new StoreError('STORE_QUERY_INVALID', `query parameter "${name}" (${typeText(type)}) ${error.why}`);
  }
}

/**
 * The bare literal (no conversion). Inside an array (`nested`) numbers are written as text too:
 * ClickHouse infers an array literal's type from its elements ([[4294967296], [-1]] has no common
 * type), while an array of strings converts to any numeric array type element by element.
 */
function literal(type: BindType, value: QueryParam, nested: boolean): string {
  switch (type.kind) {
    case 'nullable':
      return value === null || value === undefined ? 'NULL' : literal(type.inner, value, nested);
    case 'low-cardinality':
      return literal(type.inner, value, nested);
    case 'array':
      // Text in the type's own text format ('[1,2]'), as ClickHouse's HTTP protocol passes every
      // parameter: one string literal, converted by the engine's parser (only at the top level,
      // where the _CAST of literalFor names the whole type).
      if (typeof value === 'string' && !nested) return stringLiteral(value);
      if (!Array.isArray(value)) refuse('an array (or its text, at the top level)', value);
      return `[${(value as readonly QueryParam[]).map((item) => literal(type.inner, item, true)).join(', ')}]`;
    case 'int': {
      const digits = integer(type, value);
      return nested || type.wide ? stringLiteral(digits) : digits;
    }
    case 'float':
      return float(value);
    case 'bool':
      return bool(value);
    case 'string':
      return stringLiteral(text(value));
    case 'fixed-string': {
      const s = text(value);
      if (encoder.encode(s).length > type.bytes) throw new Refusal(`must be at most ${type.bytes} bytes`);
      return stringLiteral(s);
    }
    case 'uuid':
      if (typeof value !== 'string' || !UUID_TEXT.test(value)) refuse('a UUID string', value);
      return stringLiteral(value as string);
    case 'date':
    case 'datetime':
    case 'datetime64': {
      const written = time(type, value);
      return nested && !written.startsWith("'") ? stringLiteral(written) : written;
    }
  }
}

function integer(type: Extract<BindType, { kind: 'int' }>, value: QueryParam): string {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && INTEGER_TEXT.test(value)) n = BigInt(value);
  else return refuse('an integer (a safe integer number, a bigint or a string of digits)', value);
  if (n < type.min || n > type.max) throw new Refusal(`must be from ${type.min} to ${type.max}`);
  // The caller writes 128- and 256-bit values as text: the SQL parser reads an integer literal
  // beyond 64 bits as a float.
  return n.toString();
}

/**
 * Floats go out as their decimal text in a string literal: the engine parses the text straight
 * into the declared width (Float32 included), as its own binding does, instead of rounding a
 * Float64 literal a second time.
 */
function float(value: QueryParam): string {
  // String(-0) is "0": the sign of zero is kept by hand.
  if (typeof value === 'number' && Number.isFinite(value))
    return stringLiteral(Object.is(value, -0) ? '-0' : String(value));
  if (typeof value === 'string' && FLOAT_TEXT.test(value)) return stringLiteral(value);
  return refuse('a finite number', value);
}

function bool(value: QueryParam): string {
  if (value === true || value === 1 || value === 'true' || value === '1') return 'true';
  if (value === false || value === 0 || value === 'false' || value === '0') return 'false';
  return refuse('a boolean', value);
}

/** Text of a String value: strings as they are; numbers and booleans as the engine's binding wrote them. */
function text(value: QueryParam): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return refuse('a string', value);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * Dates and times: a JS Date as its UTC calendar text (with milliseconds for DateTime64); a
 * string as the text ClickHouse parses (in a string literal, so only ever a value); a number as
 * epoch seconds (DateTime, DateTime64 only).
 */
function time(
  type: Extract<BindType, { kind: 'date' | 'datetime' | 'datetime64' }>,
  value: QueryParam,
): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Refusal('must be a valid Date');
    const day = `${pad(value.getUTCFullYear(), 4)}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
    if (type.kind === 'date') return stringLiteral(day);
    const clock = `${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}:${pad(value.getUTCSeconds())}`;
    const ms = type.kind === 'datetime64' ? `.${pad(value.getUTCMilliseconds(), 3)}` : '';
    return stringLiteral(`${day} ${clock}${ms}`);
  }
  if (typeof value === 'string') return stringLiteral(value);
  if (type.kind !== 'date' && typeof value === 'number' && Number.isFinite(value)) return String(value);
  return refuse(
    type.kind === 'date' ? 'a Date or a date string' : 'a Date, a date-time string or epoch seconds',
    value,
  );
}
