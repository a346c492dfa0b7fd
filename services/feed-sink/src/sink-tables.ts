/**
 * How each feed topic maps to its ClickHouse table: the table and columns of @feedpipe/contracts,
 * and the row built from one Kafka message value (a record in the contract's layout plus
 * `receivedAt`). Rows become CSV lines (csv-lines.ts); trades and OHLC updates in the ingestor's
 * exact text skip the parse through their `canonical` layout.
 *
 * The row builders are derived from the contracts at load: a column that stores a record field as
 * it is (the field's `column`) takes that field, checked and converted by the field's kind; the
 * `type`/`kind` column takes the record type; `value1`/`value2` take the record's value fields that
 * have no column of their own, in order (reference updates); any other column takes its default
 * (a status row of another type). A column none of these fill is a contract the sink cannot store:
 * an error at load, not a row dropped at run time.
 *
 * A topic may carry record types stored in another table (ROUTED_TABLES): the status topic's `gap`
 * records, written by the ingestor itself, go to market.feed_gaps.
 */
import {
  FEED_TABLE_OF_TOPIC,
  FEED_TABLES,
  FEED_VALUE_FIELDS,
  type FeedRecordType,
  type FieldKind,
  GAP_LAYOUT,
  KAFKA_SOURCE_COLUMNS,
  RECORD_TYPES,
  type RecordField,
  TOPIC_KIND_OF_RECORD,
  TOPIC_KINDS,
  type TopicKind,
} from '@feedpipe/contracts';
import { type CanonicalLayout, canonicalLayout, DERIVED_COLUMN } from './csv-lines.js';
import { SinkError } from './errors.js';
import type { TradeQuantities } from './trade-quantities.js';

export interface SinkTable {
  readonly table: string;
  /** Columns in row order; the last one, kafka_cluster, is appended by the sink to every row. */
  readonly columns: readonly string[];
  /**
   * Null when the value is not a record of this table's kinds (counted as invalid, skipped). A
   * trade's quantity column takes the next quantity of `quantities` (trade-quantities.ts).
   */
  toRow(value: FeedValue, partition: number, offset: string, quantities?: TradeQuantities): unknown[] | null;
  /** The ingestor's exact text of this table's records, copied to CSV without a parse. */
  readonly canonical?: CanonicalLayout;
}

/** The parsed Kafka value; fields are checked per type by `toRow`. */
export type FeedValue = Record<string, unknown>;

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const UINT32_MAX = 0xffffffff;
/** What a `token` field may hold: it is stored as it is, so nothing but a short plain word. */
const TOKEN = /^[a-z_]{1,32}$/;

/** An integer in [min, max], or null: a value the column cannot hold would fail the whole insert. */
function int(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : null;
}

/**
 * A field's value as its column takes it, or null when the column cannot hold it. Lenient where the
 * meaning is clear: a negative security id is its unsigned twin (the wire's int32), a negative time
 * is 0, the receive time goes as text (DateTime64(6) micros exceed what CSV parsing of a float keeps).
 */
const CONVERT: Readonly<Record<FieldKind, (value: unknown) => unknown>> = {
  uint8: (v) => int(v, 0, 255),
  uint32: (v) => {
    const id = int(v, INT32_MIN, UINT32_MAX);
    return id === null ? null : id >>> 0;
  },
  int16: (v) => int(v, -0x8000, 0x7fff),
  int32: (v) => int(v, INT32_MIN, INT32_MAX),
  epochSeconds: (v) => {
    const seconds = int(v, INT32_MIN, UINT32_MAX);
    return seconds === null ? null : Math.max(0, seconds);
  },
  epochMicros: (v) => {
    const micros = int(v, 0, Number.MAX_SAFE_INTEGER);
    return micros === null ? null : String(Math.trunc(micros));
  },
  float32: (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null),
  uint8Triple: (v) => (Array.isArray(v) ? v.map((b) => Number(b) & 0xff) : null),
  token: (v) => (typeof v === 'string' && TOKEN.test(v) ? v : null),
  // No column stores a published quantity as it is (the trade's quantity is the sink's own, DERIVED_COLUMN).
  countOrNull: (v) => int(v, 0, INT32_MAX),
};

/** Columns that hold the record type itself. */
const TYPE_COLUMNS = new Set(['type', 'kind']);
/** Columns that hold a record's value fields without a column of their own, in order. */
const VALUE_COLUMNS = ['value1', 'value2'];
/** What a column holds for a record type that has no field for it. */
const COLUMN_DEFAULTS: Readonly<Record<string, unknown>> = {
  value2: 0,
  market_type: [],
  status: 0,
  error_code: 0,
};

/** One column of a row: the record type, a converted field, a constant, or the trade's quantity. */
type ColumnSource =
  | { readonly from: 'type' }
  | { readonly from: 'quantity' }
  | { readonly from: 'field'; readonly name: string; readonly convert: (value: unknown) => unknown }
  | { readonly from: 'constant'; readonly value: unknown };

function rowPlan(type: string, fields: readonly RecordField[], columns: readonly string[]): ColumnSource[] {
  const unstored = fields.filter((f) => f.column === undefined);
  const sourceOf = (column: string): ColumnSource => {
    if (TYPE_COLUMNS.has(column)) return { from: 'type' };
    if (type === 'trade' && column === DERIVED_COLUMN) return { from: 'quantity' };
    const direct: RecordField | undefined =
      fields.find((f) => f.column === column) ?? unstored[VALUE_COLUMNS.indexOf(column)];
    if (direct) return { from: 'field', name: direct.name, convert: CONVERT[direct.kind] };
    if (Object.hasOwn(COLUMN_DEFAULTS, column)) return { from: 'constant', value: COLUMN_DEFAULTS[column] };
    throw new SinkError('INTERNAL', `no field of ${type} records fills column ${column}`);
  };
  return columns.map(sourceOf);
}

/** The table of `name` and `columns` whose rows are built by `plans` (by record type). */
function tableOf(
  name: string,
  columns: readonly string[],
  plans: ReadonlyMap<string, ColumnSource[]>,
  canonical?: CanonicalLayout,
): SinkTable {
  return {
    table: name,
    columns,
    ...(canonical ? { canonical } : {}),
    toRow(value, partition, offset, quantities) {
      const plan = typeof value.type === 'string' ? plans.get(value.type) : undefined;
      if (!plan) return null;
      const row: unknown[] = [];
      let quantityAt = -1;
      for (const source of plan) {
        if (source.from === 'type') row.push(value.type);
        else if (source.from === 'constant') row.push(source.value);
        else if (source.from === 'quantity') {
          quantityAt = row.length;
          row.push(0);
        } else {
          const converted = source.convert(value[source.name]);
          if (converted === null) return null;
          row.push(converted);
        }
      }
      // Derived once the row is valid: a trade that is not stored is no one's predecessor.
      if (quantityAt >= 0) row[quantityAt] = tradeQuantity(value, row, columns, quantities);
      row.push(partition, offset);
      return row;
    },
  };
}

/**
 * The quantity of the trade in `row` (columns of market.ticks), from `quantities`; the quantity
 * `value` carries, if any, is checked against it.
 */
function tradeQuantity(
  value: FeedValue,
  row: readonly unknown[],
  columns: readonly string[],
  quantities?: TradeQuantities,
): number {
  if (!quantities) throw new SinkError('INTERNAL', 'a trade row needs the trade quantities');
  const at = (column: string): number => row[columns.indexOf(column)] as number;
  const published = typeof value.quantity === 'number' ? value.quantity : undefined;
  return quantities.next(at('security_id'), at('ltt'), at('volume'), published);
}

const dataColumnsOf = (columns: readonly string[]): readonly string[] =>
  columns.slice(0, columns.length - KAFKA_SOURCE_COLUMNS.length);

function sinkTable(kind: TopicKind): SinkTable {
  const contract = FEED_TABLE_OF_TOPIC[kind];
  const dataColumns = dataColumnsOf(contract.columns);
  const types = RECORD_TYPES.filter((type) => TOPIC_KIND_OF_RECORD[type] === kind);
  const plans = new Map(
    types.map((type) => [type as string, rowPlan(type, FEED_VALUE_FIELDS[type], dataColumns)]),
  );
  const canonical = types.length === 1 ? canonicalLayout(types[0] as FeedRecordType) : undefined;
  return tableOf(contract.name, contract.columns, plans, canonical);
}

/** market.feed_gaps, filled by the ingestor's `gap` records (GAP_LAYOUT; no receive time). */
function gapTable(): SinkTable {
  const contract = FEED_TABLES.feedGaps;
  const plan = rowPlan(GAP_LAYOUT.type, GAP_LAYOUT.fields, dataColumnsOf(contract.columns));
  return tableOf(contract.name, contract.columns, new Map([[GAP_LAYOUT.type, plan]]));
}

export const SINK_TABLES: Readonly<Record<TopicKind, SinkTable>> = Object.freeze(
  Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, sinkTable(kind)])) as Record<TopicKind, SinkTable>,
);

/**
 * Record types of a topic stored in a table other than the topic's own (SINK_TABLES), by type. The
 * status topic carries the ingestor's `gap` records beside the feed's status packets.
 */
export const ROUTED_TABLES: Readonly<Record<TopicKind, ReadonlyMap<string, SinkTable>>> = Object.freeze({
  trades: new Map(),
  ohlc: new Map(),
  reference: new Map(),
  status: new Map([[GAP_LAYOUT.type, gapTable()]]),
});

/** The tables a topic's records are stored in: its own, then those routed out of it. */
export function tablesOfTopic(kind: TopicKind): readonly SinkTable[] {
  return [SINK_TABLES[kind], ...ROUTED_TABLES[kind].values()];
}

/** Every table the sink writes: the topics' own and the routed ones. */
export const ALL_SINK_TABLES: readonly SinkTable[] = TOPIC_KINDS.flatMap(tablesOfTopic);
