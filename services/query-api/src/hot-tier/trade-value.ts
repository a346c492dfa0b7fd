/**
 * A trades-topic value read as the sink reads it into market.ticks (services/feed-sink's row
 * conversion, the contract's field kinds): a negative security id is its unsigned twin, a
 * negative trade time 0, a non-finite price or an out-of-range integer makes the record invalid
 * (the sink skips it; so does the tier). Anything but a `trade` record is not a trade.
 */
export interface TradeValue {
  securityId: number;
  ltt: number;
  ltp: number;
  volume: number;
  /** Epoch microseconds. */
  receivedAt: number;
}

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const UINT32_MAX = 0xffffffff;

function int(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : null;
}

/** The trade in a Kafka value, or null when the sink would not store it as a tick. */
export function parseTradeValue(value: Buffer): TradeValue | null {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(value.toString('latin1')) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (record === null || typeof record !== 'object' || record.type !== 'trade') return null;
  const sid = int(record.securityId, INT32_MIN, UINT32_MAX);
  const ltt = int(record.ltt, INT32_MIN, UINT32_MAX);
  const volume = int(record.volume, INT32_MIN, INT32_MAX);
  const receivedAt = int(record.receivedAt, 0, Number.MAX_SAFE_INTEGER);
  const ltp = record.ltp;
  const segment = int(record.segment, 0, 255);
  const lut = int(record.lut, INT32_MIN, UINT32_MAX);
  if (
    sid === null ||
    ltt === null ||
    volume === null ||
    receivedAt === null ||
    segment === null ||
    lut === null
  )
    return null;
  if (typeof ltp !== 'number' || !Number.isFinite(ltp)) return null;
  return { securityId: sid >>> 0, ltt: Math.max(0, ltt), ltp: Math.fround(ltp), volume, receivedAt };
}
