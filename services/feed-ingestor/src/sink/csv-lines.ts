/**
 * Sink rows as CSV lines, the format of the sink's bulk insert (Store.insertCsv).
 *
 * Trades and OHLC updates, nearly all the traffic, take a fast path: a value in the exact text the
 * ingestor writes (fixed key order, plain numbers) is matched by one anchored pattern and its
 * numbers are copied into the line as they are, with no parse into objects and no re-serialisation
 * (JSON.parse, a row array and the client's JSON encoding cost several microseconds a row, more
 * than the sink's whole budget at 100k rows/s). The patterns only accept numbers every column can
 * hold, so a matched line cannot fail the insert. Anything else (another producer's spelling, a
 * negative id, a malformed value) falls back to JSON.parse and the table's own validation.
 */

/** A JSON number as JSON writes it. */
const NUM = '(-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)';
/** Integers of at most as many digits as the column's largest value; the range is checked after. */
const SEGMENT = '(\\d{1,3})';
const ID = '(\\d{1,10})';
const INT32 = '(-?\\d{1,10})';
/** Seconds for a DateTime column: 0 .. 1,999,999,999 (ten digits starting with 1 stay below 2^32). */
const SECONDS = '(1\\d{9}|\\d{1,9})';
const UINT32_MAX = 0xffffffff;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const MICROS = '(\\d{1,16})';

const TRADE = new RegExp(
  `^\\{"type":"trade","segment":${SEGMENT},"securityId":${ID},"ltp":${NUM},"volume":${INT32},"ltt":${SECONDS},"lut":${SECONDS},"receivedAt":${MICROS}\\}$`,
);
const OHLC = new RegExp(
  `^\\{"type":"ohlc","segment":${SEGMENT},"securityId":${ID},"open":${NUM},"close":${NUM},"high":${NUM},"low":${NUM},"receivedAt":${MICROS}\\}$`,
);

/**
 * The CSV line of a trade value in the ingestor's exact text, columns as the ticks table lists
 * them; null when the value is spelled otherwise (the caller then takes the slow path).
 */
export function tradeLine(text: string, partition: number, offset: string, cluster: string): string | null {
  const m = TRADE.exec(text);
  if (m === null || Number(m[1]) > 255 || Number(m[2]) > UINT32_MAX) return null;
  const volume = Number(m[4]);
  if (volume < INT32_MIN || volume > INT32_MAX) return null;
  return `${m[2]},${m[1]},${m[3]},${m[4]},${m[5]},${m[6]},${m[7]},${partition},${offset},${cluster}\n`;
}

/** The CSV line of an OHLC value in the ingestor's exact text; null otherwise. */
export function ohlcLine(text: string, partition: number, offset: string, cluster: string): string | null {
  const m = OHLC.exec(text);
  if (m === null || Number(m[1]) > 255 || Number(m[2]) > UINT32_MAX) return null;
  return `${m[2]},${m[1]},${m[3]},${m[4]},${m[5]},${m[6]},${m[7]},${partition},${offset},${cluster}\n`;
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

/**
 * A block of CSV lines in one growing buffer. Lines are written as they come instead of being kept
 * as strings: 200,000 retained line strings (ropes, until flattened) were what the consumer's young
 * collections kept copying. Buffers are reused once their insert is done (`recycle`).
 */
export class CsvBlock {
  static readonly #free: Buffer[] = [];
  #bytes: Buffer;
  #length = 0;
  rows = 0;

  constructor(initialBytes = 1 << 20) {
    this.#bytes = CsvBlock.#free.pop() ?? Buffer.allocUnsafeSlow(initialBytes);
  }

  append(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = line.length * 3;
    if (this.#length + room > this.#bytes.length) {
      let capacity = this.#bytes.length * 2;
      while (capacity < this.#length + room) capacity *= 2;
      const grown = Buffer.allocUnsafeSlow(capacity);
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    this.#length += this.#bytes.write(line, this.#length, 'utf8');
    this.rows += 1;
  }

  /** The lines written so far (a view: valid until `recycle`). */
  bytes(): Buffer {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Returns the buffer for reuse by a later block; this block must not be used afterwards. */
  recycle(): void {
    if (CsvBlock.#free.length < 4) CsvBlock.#free.push(this.#bytes);
    this.#bytes = Buffer.alloc(0);
    this.#length = 0;
    this.rows = 0;
  }
}
