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
import type { TradeQuantities } from './trade-quantities.js';

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
  /** 0..2147483647 or `null` (a trade's published quantity, checked against the sink's own). */
  CountOrNull,
}

/** The canonical text of one record type: literals around its fields, and the CSV column order. */
export interface CanonicalLayout {
  /** literals[i] precedes field i; the last literal closes the object. */
  readonly literals: readonly Uint8Array[];
  readonly fields: readonly Field[];
  /** CSV column j takes field order[j]; -1 for the column the sink derives (DERIVED_COLUMN). */
  readonly order: readonly number[];
  /**
   * Fields from this index on were added by a later schema version than the first (record-layout.ts,
   * addedIn): a value may end before them, as records written under the earlier version do.
   */
  readonly optionalFrom: number;
  /** For a trade: the fields its traded quantity is derived from (trade-quantities.ts). */
  readonly quantityFrom?: QuantityFields;
}

/** Field indexes of a trade's security id, cumulative volume, trade time and published quantity. */
export interface QuantityFields {
  readonly securityId: number;
  readonly volume: number;
  readonly ltt: number;
  readonly published: number;
}

/**
 * The one column no record field fills: a trade's traded quantity, which the sink derives from the
 * record and the instrument's previous stored trade (trade-quantities.ts).
 */
export const DERIVED_COLUMN = 'quantity';

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
  countOrNull: Field.CountOrNull,
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
  const derived = type === 'trade' ? dataColumns.indexOf(DERIVED_COLUMN) : -1;
  const stored = order.filter((_, j) => j !== derived);
  // Every field with a column is copied; the one without (a trade's published quantity) is read.
  const withColumn = valueFields.filter((f) => f.column !== undefined).length;
  if (stored.length !== withColumn || stored.includes(-1)) return undefined;
  const literals = jsonLiterals(type, valueFields).map(bytesOf);
  const firstLater = valueFields.findIndex((f) => f.addedIn > 1);
  const optionalFrom = firstLater < 0 ? valueFields.length : firstLater;
  if (derived < 0) return { literals, fields, order, optionalFrom };
  const fieldOf = (name: string): number => valueFields.findIndex((f) => f.name === name);
  const quantityFrom = {
    securityId: fieldOf('securityId'),
    volume: fieldOf('volume'),
    ltt: fieldOf('ltt'),
    published: fieldOf('quantity'),
  };
  return { literals, fields, order, optionalFrom, quantityFrom };
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
const CLOSE_BRACE = 125;
const NULL_TEXT = bytesOf('null');
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
    case Field.CountOrNull: {
      if (src[at] === NULL_TEXT[0]) {
        for (let i = 1; i < NULL_TEXT.length; i++) if (src[at + i] !== NULL_TEXT[i]) return -1;
        return at + NULL_TEXT.length;
      }
      const end = digitsEnd(src, at, 10);
      return end < 0 || digitsValue(src, at, end) > 0x7fffffff ? -1 : end;
    }
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

/**
 * True when `src[start, end)` is exactly `layout`'s text, or its text up to its optional fields
 * closed there; the field spans are then in `spans` (an absent field's start is -1).
 */
function matches(src: Uint8Array, start: number, end: number, layout: CanonicalLayout): boolean {
  const { literals, fields, optionalFrom } = layout;
  let p = start;
  for (let i = 0; i <= fields.length; i++) {
    if (i === optionalFrom && p + 1 === end && src[p] === CLOSE_BRACE) {
      for (let j = i; j < fields.length; j++) spans[2 * j] = -1;
      return true;
    }
    const literal = literals[i] as Uint8Array;
    if (p + literal.length > end) return false;
    for (let j = 0; j < literal.length; j++) if (src[p + j] !== literal[j]) return false;
    p += literal.length;
    if (i === fields.length) break;
    const fieldStop = fieldEnd(src, p, fields[i] as Field);
    if (fieldStop < 0 || fieldStop > end) return false;
    spans[2 * i] = p;
    spans[2 * i + 1] = fieldStop;
    p = fieldStop;
  }
  return p === end;
}

/**
 * Appends the CSV line of the value in `src[start, end)` (by default all of `src`) to `block` when
 * it is exactly `layout`'s text, with the block's current source (`CsvBlock.source`) and `offset`;
 * returns false (and appends nothing) otherwise. The value is read in place: a caller holding a
 * whole fetch response passes it with the record's bounds, no view per record.
 */
export function appendCanonical(
  block: CsvBlock,
  layout: CanonicalLayout,
  src: Uint8Array,
  offset: number,
  start = 0,
  end = src.length,
  quantities?: TradeQuantities,
): boolean {
  if (!matches(src, start, end, layout)) return false;
  const from = layout.quantityFrom;
  let derived = 0;
  if (from) {
    if (!quantities) throw new SinkError('INTERNAL', 'a trade line needs the trade quantities');
    derived = quantities.next(
      spanInteger(src, from.securityId),
      spanInteger(src, from.ltt),
      spanInteger(src, from.volume),
      publishedQuantity(src, from.published),
    );
  }
  block.appendFields(src, spans, layout.order, offset, derived);
  return true;
}

/** The integer of field i of the last match (its text already checked by `fieldEnd`). */
function spanInteger(src: Uint8Array, i: number): number {
  const from = spans[2 * i] as number;
  const to = spans[2 * i + 1] as number;
  return src[from] === MINUS ? -digitsValue(src, from + 1, to) : digitsValue(src, from, to);
}

/** The quantity field i of the last match carries: undefined when absent or null. */
function publishedQuantity(src: Uint8Array, i: number): number | undefined {
  const from = spans[2 * i] as number;
  return from < 0 || src[from] === NULL_TEXT[0] ? undefined : spanInteger(src, i);
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
const ZERO_CHAR = 48;

const asciiBytes = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

function copyInto(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes[i] as number;
  return at + bytes.length;
}

/** Digits of the largest offset (below 2^53). */
const MAX_OFFSET_DIGITS = 16;

/**
 * The decimal text of the offsets of consecutive records, kept as digits and counted up in place:
 * a batch's offsets follow one another, so the next one's text is one increment away (usually its
 * last digit) instead of a string made per record. Any other offset is written afresh.
 */
class OffsetText {
  /** Digits, right-aligned. */
  readonly #digits = new Uint8Array(MAX_OFFSET_DIGITS + 1);
  #from = MAX_OFFSET_DIGITS + 1;
  #offset = -2;

  /** Writes the text of `offset` into `out` at `at`; returns where it ends. */
  write(out: Uint8Array, at: number, offset: number): number {
    if (offset === this.#offset + 1) this.#increment();
    else this.#reset(offset);
    this.#offset = offset;
    const digits = this.#digits;
    let p = at;
    for (let i = this.#from; i < digits.length; i++) out[p++] = digits[i] as number;
    return p;
  }

  #increment(): void {
    const digits = this.#digits;
    let i = digits.length - 1;
    while (i >= this.#from && digits[i] === ZERO_CHAR + 9) digits[i--] = ZERO_CHAR;
    if (i >= this.#from) digits[i] = (digits[i] as number) + 1;
    else digits[--this.#from] = ZERO_CHAR + 1;
  }

  #reset(offset: number): void {
    const text = String(offset);
    this.#from = this.#digits.length - text.length;
    for (let i = 0; i < text.length; i++) this.#digits[this.#from + i] = text.charCodeAt(i);
  }
}

/** The decimal digits of a non-negative integer below 2^53 into `out` at `at`; returns the end. */
function writeDigits(out: Uint8Array, at: number, value: number): number {
  if (value === 0) {
    out[at] = ZERO_CHAR;
    return at + 1;
  }
  let digits = 0;
  for (let v = value; v >= 1; v = Math.floor(v / 10)) digits++;
  let v = value;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = ZERO_CHAR + (v % 10);
    v = Math.floor(v / 10);
  }
  return at + digits;
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
  /** `,partition,` and `,cluster\n` of the current source (`source`). */
  #middle: Uint8Array = asciiBytes(',0,');
  #tail: Uint8Array = asciiBytes(',""\n');
  readonly #offsetText = new OffsetText();

  constructor(initialBytes = 1 << 20) {
    this.#bytes = blockPool.acquire(initialBytes);
  }

  /**
   * Sets the partition and cluster of the rows appended next by `appendFields`: their text is
   * written once here and copied into each line (a batch is one partition of one cluster).
   */
  source(partition: number, cluster: string): void {
    this.#middle = asciiBytes(`,${partition},`);
    this.#tail = asciiBytes(`,${cluster}\n`);
  }

  /**
   * One line from byte spans of `src` (column j = span order[j], or `derived` where order[j] is
   * -1), then the source's partition, `offset` and cluster. Everything written here is ASCII,
   * checked by the caller.
   */
  appendFields(
    src: Uint8Array,
    fieldSpans: Int32Array,
    order: readonly number[],
    offset: number,
    derived = 0,
  ): void {
    const middle = this.#middle;
    const tail = this.#tail;
    const fields = order.length - (order.includes(-1) ? 1 : 0);
    const fieldBytes = (fieldSpans[2 * fields - 1] as number) - (fieldSpans[0] as number);
    this.#reserve(
      fieldBytes + order.length + MAX_OFFSET_DIGITS + middle.length + MAX_OFFSET_DIGITS + tail.length,
    );
    const out = this.#bytes;
    let p = this.#length;
    for (let j = 0; j < order.length; j++) {
      const field = order[j] as number;
      if (j > 0) out[p++] = COMMA;
      if (field < 0) {
        p = writeDigits(out, p, derived);
        continue;
      }
      const from = fieldSpans[2 * field] as number;
      const to = fieldSpans[2 * field + 1] as number;
      for (let i = from; i < to; i++) out[p++] = src[i] as number;
    }
    p = copyInto(out, p, middle);
    p = this.#offsetText.write(out, p, offset);
    p = copyInto(out, p, tail);
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
