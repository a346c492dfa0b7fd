import { BrokerApiError } from '../core/errors.js';

/** Parallel arrays as they arrive in one answer, e.g. `{ open: [...], timestamp: [...] }`. */
export type RawColumns = Readonly<Record<string, unknown>>;

/** One row read from a ColumnSet: the timestamp plus every column present. */
export type ColumnRow<F extends string> = { timestamp: number } & Partial<Record<F, number>>;

/**
 * Parallel numeric arrays as typed columns. Every column is a Float64Array: volumes and open
 * interest exceed 2^31 for indices and timestamps pass int32 in 2038, so narrower types would lie.
 * Built from one or more answers with a single copy each (JSON array -> typed array).
 */
export class ColumnSet<F extends string> {
  readonly length: number;
  /** Epoch seconds, ascending. */
  readonly timestamp: Float64Array;
  readonly #columns: ReadonlyMap<F, Float64Array>;

  constructor(timestamp: Float64Array, columns: ReadonlyMap<F, Float64Array>) {
    this.length = timestamp.length;
    this.timestamp = timestamp;
    this.#columns = columns;
  }

  /** Names of the columns present (besides timestamp). */
  get fields(): F[] {
    return [...this.#columns.keys()];
  }

  has(field: F): boolean {
    return this.#columns.has(field);
  }

  column(field: F): Float64Array | undefined {
    return this.#columns.get(field);
  }

  row(index: number): ColumnRow<F> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`row ${index} is outside 0..${this.length - 1}`);
    }
    const out: Record<string, number> = { timestamp: this.timestamp[index] as number };
    for (const [name, values] of this.#columns) out[name] = values[index] as number;
    return out as ColumnRow<F>;
  }

  /** Rows in time order; each row is a fresh object, the columns are not copied. */
  *rows(): IterableIterator<ColumnRow<F>> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }

  [Symbol.iterator](): IterableIterator<ColumnRow<F>> {
    return this.rows();
  }
}

/**
 * Merges the answers of consecutive calls into one ColumnSet. Rows whose timestamp is not after
 * the last timestamp of earlier answers are dropped, so ranges that overlap at a boundary (an
 * inclusive toDate) still give every row exactly once.
 *
 * `required` columns must be present in every non-empty answer; `optional` ones are kept when the
 * first non-empty answer has them. Column lengths must match the timestamp column.
 */
export function mergeColumns<F extends string>(
  chunks: readonly RawColumns[],
  required: readonly F[],
  optional: readonly F[],
  route: string,
): ColumnSet<F> {
  const parsed: { ts: readonly number[]; cols: Map<F, readonly number[]> }[] = [];
  let present: F[] | undefined;
  for (const chunk of chunks) {
    const ts = numberArray(chunk.timestamp, 'timestamp', route);
    if (ts === undefined || ts.length === 0) continue;
    if (present === undefined) {
      present = [
        ...required,
        ...optional.filter((f) => Array.isArray(chunk[f]) && (chunk[f] as unknown[]).length > 0),
      ];
    }
    const cols = new Map<F, readonly number[]>();
    for (const field of present) {
      const values = numberArray(chunk[field], field, route);
      if (values === undefined || values.length !== ts.length) {
        throw malformed(route, `column "${field}" is missing or not as long as timestamp`);
      }
      cols.set(field, values);
    }
    parsed.push({ ts, cols });
  }
  // First pass: which rows survive; second pass: one copy into the typed arrays.
  let total = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const { ts } of parsed) {
    const before = last;
    let kept = 0;
    for (const t of ts) {
      if (t > before) kept++;
      if (t > last) last = t;
    }
    total += kept;
  }
  const timestamp = new Float64Array(total);
  const columns = new Map<F, Float64Array>();
  for (const field of present ?? required) columns.set(field, new Float64Array(total));
  let at = 0;
  last = Number.NEGATIVE_INFINITY;
  for (const { ts, cols } of parsed) {
    const before = last;
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i] as number;
      if (t > last) last = t;
      if (t <= before) continue;
      timestamp[at] = t;
      for (const [field, values] of cols) (columns.get(field) as Float64Array)[at] = values[i] as number;
      at++;
    }
  }
  return new ColumnSet(timestamp, columns);
}

function numberArray(value: unknown, name: string, route: string): readonly number[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw malformed(route, `"${name}" is not an array`);
  for (const v of value) {
    if (typeof v !== 'number') throw malformed(route, `"${name}" holds a non-number`);
  }
  return value as number[];
}

function malformed(route: string, what: string): BrokerApiError {
  return new BrokerApiError({ code: 'INVALID_RESPONSE', message: `${route}: ${what}`, route });
}
