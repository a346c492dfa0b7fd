/**
 * How each feed topic maps to its ClickHouse table: the columns and the row built from one Kafka
 * message value (the decoded record JSON plus `receivedAt`). Rows become CSV lines (csv-lines.ts);
 * trades and OHLC updates in the ingestor's exact text skip the parse through their `canonical`
 * layout.
 */
import type { TopicKind } from '@feedpipe/contracts';
import { type CanonicalLayout, OHLC_LAYOUT, TRADE_LAYOUT } from './csv-lines.js';

export interface SinkTable {
  readonly table: string;
  /** Columns in row order; the last one, kafka_cluster, is appended by the sink to every row. */
  readonly columns: readonly string[];
  /** Null when the value is not a record of this table's kinds (counted as invalid, skipped). */
  toRow(value: FeedValue, partition: number, offset: string): unknown[] | null;
  /** The ingestor's exact text of this table's records, copied to CSV without a parse. */
  readonly canonical?: CanonicalLayout;
}

/** The parsed Kafka value; fields are checked per type by `toRow`. */
export type FeedValue = Record<string, unknown>;

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** An integer in [min, max], or null: a value the column cannot hold would fail the whole insert. */
function int(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : null;
}

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const UINT32_MAX = 0xffffffff;

function base(value: FeedValue): [number, number, number] | null {
  const securityId = int(value.securityId, INT32_MIN, UINT32_MAX);
  const segment = int(value.segment, 0, 255);
  const receivedAt = int(value.receivedAt, 0, Number.MAX_SAFE_INTEGER);
  if (securityId === null || segment === null || receivedAt === null) return null;
  return [securityId >>> 0, segment, Math.trunc(receivedAt)];
}

const tradeTable: SinkTable = {
  table: 'market.ticks',
  canonical: TRADE_LAYOUT,
  columns: [
    'security_id',
    'segment',
    'ltp',
    'volume',
    'ltt',
    'lut',
    'received_at',
    'kafka_partition',
    'kafka_offset',
    'kafka_cluster',
  ],
  toRow(value, partition, offset) {
    const head = base(value);
    const ltp = num(value.ltp);
    const volume = int(value.volume, INT32_MIN, INT32_MAX);
    const ltt = int(value.ltt, INT32_MIN, UINT32_MAX);
    const lut = int(value.lut, INT32_MIN, UINT32_MAX);
    if (value.type !== 'trade' || !head || ltp === null || volume === null || ltt === null || lut === null)
      return null;
    return [
      head[0],
      head[1],
      ltp,
      volume,
      Math.max(0, ltt),
      Math.max(0, lut),
      String(head[2]),
      partition,
      offset,
    ];
  },
};

const ohlcTable: SinkTable = {
  table: 'market.ohlc_updates',
  canonical: OHLC_LAYOUT,
  columns: [
    'security_id',
    'segment',
    'open',
    'close',
    'high',
    'low',
    'received_at',
    'kafka_partition',
    'kafka_offset',
    'kafka_cluster',
  ],
  toRow(value, partition, offset) {
    const head = base(value);
    const open = num(value.open);
    const close = num(value.close);
    const high = num(value.high);
    const low = num(value.low);
    if (value.type !== 'ohlc' || !head || open === null || close === null || high === null || low === null)
      return null;
    return [head[0], head[1], open, close, high, low, String(head[2]), partition, offset];
  },
};

const referenceTable: SinkTable = {
  table: 'market.reference_updates',
  columns: [
    'security_id',
    'segment',
    'kind',
    'value1',
    'value2',
    'received_at',
    'kafka_partition',
    'kafka_offset',
    'kafka_cluster',
  ],
  toRow(value, partition, offset) {
    const head = base(value);
    if (!head) return null;
    let v1: number | null;
    let v2: number | null = 0;
    switch (value.type) {
      case 'prev_close':
        v1 = num(value.prevClose);
        break;
      case 'circuit_limit':
        v1 = num(value.upper);
        v2 = num(value.lower);
        break;
      case 'week52':
        v1 = num(value.high);
        v2 = num(value.low);
        break;
      default:
        return null;
    }
    if (v1 === null || v2 === null) return null;
    return [head[0], head[1], value.type, v1, v2, String(head[2]), partition, offset];
  },
};

const statusTable: SinkTable = {
  table: 'market.feed_status',
  columns: [
    'type',
    'security_id',
    'segment',
    'market_type',
    'status',
    'error_code',
    'received_at',
    'kafka_partition',
    'kafka_offset',
    'kafka_cluster',
  ],
  toRow(value, partition, offset) {
    const head = base(value);
    if (!head) return null;
    if (value.type === 'market_status') {
      const status = int(value.status, INT32_MIN, INT32_MAX);
      const marketType = Array.isArray(value.marketType)
        ? value.marketType.map((b) => Number(b) & 0xff)
        : null;
      if (status === null || !marketType) return null;
      return ['market_status', head[0], head[1], marketType, status, 0, String(head[2]), partition, offset];
    }
    if (value.type === 'error') {
      const code = int(value.code, -0x8000, 0x7fff);
      if (code === null) return null;
      return ['error', head[0], head[1], [], 0, code, String(head[2]), partition, offset];
    }
    return null;
  },
};

export const SINK_TABLES: Readonly<Record<TopicKind, SinkTable>> = {
  trades: tradeTable,
  ohlc: ohlcTable,
  reference: referenceTable,
  status: statusTable,
};
