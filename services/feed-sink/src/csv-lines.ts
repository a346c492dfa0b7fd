/**
 * Sink rows as CSV lines, the format of the sink's bulk insert (Store.insertCsv).
 *
 * Trades and OHLC updates, nearly all the traffic, take a fast path: a value in the exact text the
 * ingestor writes (the canonical layout of @feedpipe/contracts: fixed keys in a fixed order, plain
 * numbers) is checked byte by byte against literals derived from that layout at load, and its
 * numbers are copied into the CSV block as they are: no string, no parse into objects, no
 * re-serialisation (JSON.parse, a row array and the client's JSON encoding cost several
 * microseconds a row, more than the sink's whole budget at 100k rows/s). A field is only accepted
 * when every value of its spelling fits its column, so a fast line cannot fail the insert. Anything
 * else (another producer's spelling, a negative id, a malformed value) falls back to JSON.parse and
 * the table's own validation.
 */

import {
  FEED_TABLE_OF_TOPIC,
  FEED_VALUE_FIELDS,
  type FeedRecordType,
  type FieldKind,
  jsonLiterals,
  KAFKA_SOURCE_COLUMNS,
  TOPIC_KIND_OF_RECORD,
} from '@feedpipe/contracts';
import { BufferPool } from '@feedpipe/service-kit';
import { SinkError } from './errors.js';

/** How a field's text must look (and what its column can hold). */
enum Field {
  /** 0..255 (UInt8). */
  Uint8,
  /** 0..4294967295 (UInt32). */
  Uint32,
  /** -2147483648..2147483647 (Int32). */
  Int32,
  /** Unix seconds 0..4294967295 (DateTime). */
  Seconds,
  /** Epoch microseconds, at most 16 digits (DateTime64(6), below 2^53). */
  Micros,
  /** A JSON number (Float32 column). */
  Number,
}

/** The canonical text of one record type: literals around its fields, and the CSV column order. */
export interface CanonicalLayout {
  /** literals[i] precedes field i; the last literal closes the object. */
  readonly literals: readonly Uint8Array[];
  readonly fields: readonly Field[];
  /** CSV column j takes field order[j]. */
  readonly order: readonly number[];
}

const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

/**
 * The fast spelling of each field kind of the record contract. Kinds absent here (int16, the
 * marketType triple) have none: values with them always take the slow path.
 */
const FAST_FIELD: Partial<Record<FieldKind, Field>> = {
  uint8: Field.Uint8,
  uint32: Field.Uint32,
  int32: Field.Int32,
  epochSeconds: Field.Seconds,
  epochMicros: Field.Micros,
  float32: Field.Number,
};

/**
 * The fast-path layout of `type`'s Kafka values, derived from @feedpipe/contracts: the literals of the
 * contract's canonical text, the fast spelling of each field's kind, and the CSV order from the
 * table's columns. Undefined when the type has no fast path: a field kind without a fast spelling,
 * or a table whose columns are not the record's own fields one for one (reference and status rows
 * are reshaped, so they go through parse-and-validate).
 */
export function canonicalLayout(type: FeedRecordType): CanonicalLayout | undefined {
  const valueFields = FEED_VALUE_FIELDS[type];
  const fields: Field[] = [];
  for (const f of valueFields) {
    const fast = FAST_FIELD[f.kind];
    if (fast === undefined) return undefined;
    fields.push(fast);
  }
  const columns = FEED_TABLE_OF_TOPIC[TOPIC_KIND_OF_RECORD[type]].columns;
  const dataColumns = columns.slice(0, columns.length - KAFKA_SOURCE_COLUMNS.length);
  const order = dataColumns.map((column) => valueFields.findIndex((f) => f.column === column));
  if (order.length !== valueFields.length || order.includes(-1)) return undefined;
  return { literals: jsonLiterals(type, valueFields).map(bytesOf), fields, order };
}

function requiredLayout(type: FeedRecordType): CanonicalLayout {
  const layout = canonicalLayout(type);
  if (!layout) throw new SinkError('INTERNAL', `the record contract gives ${type} no fast-path layout`);
  return layout;
}

/** `{"type":"trade","segment":..,"securityId":..,"ltp":..,"volume":..,"ltt":..,"lut":..,"receivedAt":..}` */
export const TRADE_LAYOUT: CanonicalLayout = requiredLayout('trade');

/** `{"type":"ohlc","segment":..,"securityId":..,"open":..,"close":..,"high":..,"low":..,"receivedAt":..}` */
export const OHLC_LAYOUT: CanonicalLayout = requiredLayout('ohlc');

const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= ZERO && c <= NINE;

/** End of the digit run starting at `at` (at most `maxDigits`), or -1 when there is none or it is longer. */
function digitsEnd(src: Uint8Array, at: number, maxDigits: number): number {
  let end = at;
  while (isDigit(src[end])) end++;
  return end === at || end - at > maxDigits ? -1 : end;
}

function digitsValue(src: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + ((src[i] as number) - ZERO);
  return value;
}

/** End of a field of kind `field` starting at `at`, or -1 when its text does not qualify. */
function fieldEnd(src: Uint8Array, at: number, field: Field): number {
  switch (field) {
    case Field.Uint8: {
      const end = digitsEnd(src, at, 3);
      return end < 0 || digitsValue(src, at, end) > 255 ? -1 : end;
    }
    case Field.Uint32:
    case Field.Seconds: {
      const end = digitsEnd(src, at, 10);
      return end < 0 || digitsValue(src, at, end) > 0xffffffff ? -1 : end;
    }
    case Field.Int32: {
      const negative = src[at] === MINUS;
      const from = negative ? at + 1 : at;
      const end = digitsEnd(src, from, 10);
      if (end < 0) return -1;
      const value = digitsValue(src, from, end);
      return value > (negative ? 0x80000000 : 0x7fffffff) ? -1 : end;
    }
    case Field.Micros:
      return digitsEnd(src, at, 16);
    default: {
      // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
      let p = src[at] === MINUS ? at + 1 : at;
      if (src[p] === ZERO) p++;
      else if (isDigit(src[p])) while (isDigit(src[p])) p++;
      else return -1;
      if (src[p] === DOT) {
        p++;
        if (!isDigit(src[p])) return -1;
        while (isDigit(src[p])) p++;
      }
      if (src[p] === LOWER_E || src[p] === UPPER_E) {
        p++;
        if (src[p] === PLUS || src[p] === MINUS) p++;
        if (!isDigit(src[p])) return -1;
        while (isDigit(src[p])) p++;
      }
      return p;
    }
  }
}

/** Field spans of the last match: start and end of field i at [2i] and [2i + 1]. */
const spans = new Int32Array(32);

/** True when `src` is exactly `layout`'s text; the field spans are then in `spans`. */
function matches(src: Uint8Array, layout: CanonicalLayout): boolean {
  const { literals, fields } = layout;
  let p = 0;
  for (let i = 0; i <= fields.length; i++) {
    const literal = literals[i] as Uint8Array;
    if (p + literal.length > src.length) return false;
    for (let j = 0; j < literal.length; j++) if (src[p + j] !== literal[j]) return false;
    p += literal.length;
    if (i === fields.length) break;
    const end = fieldEnd(src, p, fields[i] as Field);
    if (end < 0) return false;
    spans[2 * i] = p;
    spans[2 * i + 1] = end;
    p = end;
  }
  return p === src.length;
}

/**
 * Appends the CSV line of `value` to `block` when the value is exactly `layout`'s text; returns
 * false (and appends nothing) otherwise. `cluster` is the cluster id already as a CSV field.
 */
export function appendCanonical(
  block: CsvBlock,
  layout: CanonicalLayout,
  value: Uint8Array,
  partition: number,
  offset: string,
  cluster: string,
): boolean {
  if (!matches(value, layout)) return false;
  block.appendFields(value, spans, layout.order, partition, offset, cluster);
  return true;
}

/** A text field, quoted the CSV way (quotes doubled). */
export function csvString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** One CSV field of a row value: numbers as JavaScript prints them, text and arrays quoted. */
function csvField(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return csvString(`[${value.map((v) => String(v)).join(',')}]`);
  return csvString(String(value));
}

/** The CSV line of a validated row (the slow path), the cluster field already quoted. */
export function rowLine(row: readonly unknown[], cluster: string): string {
  let line = '';
  for (const value of row) line += `${csvField(value)},`;
  return `${line}${cluster}\n`;
}

const COMMA = 44;
const NEWLINE = 10;

function writeAscii(out: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** Block buffers, reused once their insert is done (a few: blocks are inserted one at a time). */
const blockPool = new BufferPool(4, Number.POSITIVE_INFINITY);

/**
 * A block of CSV lines in one growing buffer. Lines are written as they come instead of being kept
 * as strings: 200,000 retained line strings (ropes, until flattened) were what the consumer's young
 * collections kept copying. Buffers come from a pool and go back once their insert is done
 * (`recycle`).
 */
export class CsvBlock {
  #bytes: Buffer;
  #length = 0;
  rows = 0;

  constructor(initialBytes = 1 << 20) {
    this.#bytes = blockPool.acquire(initialBytes);
  }

  /**
   * One line from byte spans of `src` (column j = span order[j]), then partition, offset and the
   * cluster field. Everything written here is ASCII, checked by the caller.
   */
  appendFields(
    src: Uint8Array,
    fieldSpans: Int32Array,
    order: readonly number[],
    partition: number,
    offset: string,
    cluster: string,
  ): void {
    this.#reserve(src.length + order.length + offset.length + cluster.length + 16);
    const out = this.#bytes;
    let p = this.#length;
    for (let j = 0; j < order.length; j++) {
      const field = order[j] as number;
      const from = fieldSpans[2 * field] as number;
      const to = fieldSpans[2 * field + 1] as number;
      for (let i = from; i < to; i++) out[p++] = src[i] as number;
      out[p++] = COMMA;
    }
    p = writeAscii(out, p, String(partition));
    out[p++] = COMMA;
    p = writeAscii(out, p, offset);
    out[p++] = COMMA;
    p = writeAscii(out, p, cluster);
    out[p++] = NEWLINE;
    this.#length = p;
    this.rows += 1;
  }

  append(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.#reserve(line.length * 3);
    this.#length += this.#bytes.write(line, this.#length, 'utf8');
    this.rows += 1;
  }

  #reserve(room: number): void {
    if (this.#length + room <= this.#bytes.length) return;
    this.#bytes = blockPool.grow(this.#bytes, this.#length, this.#length + room);
  }

  /** The lines written so far (a view: valid until `recycle`). */
  bytes(): Buffer {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Returns the buffer for reuse by a later block; this block must not be used afterwards. */
  recycle(): void {
    blockPool.recycle(this.#bytes);
    this.#bytes = Buffer.alloc(0);
    this.#length = 0;
    this.rows = 0;
  }
}
