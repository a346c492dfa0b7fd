import { CodecError } from '../errors.js';
import type { FeedRecord } from '../records.js';
import { formatFloat32 } from './float32.js';

/**
 * One record as JSON text in the stable shape: `type`, `segment`, `securityId`, then the type's
 * fields in wire order, float32 fields through formatFloat32 (non-finite floats as null). Extra
 * fields (e.g. receivedAt) are appended in their own order; one named like a record field is refused
 * with CodecError('INVALID_RECORD').
 * Built by concatenation because JSON.stringify would print float32 values with float64 digits.
 */
export function recordToJson(record: FeedRecord, extra?: Readonly<Record<string, number | string>>): string {
  const head = `{"type":"${record.type}","segment":${int(record.segment)},"securityId":${int(record.securityId)}`;
  let body: string;
  switch (record.type) {
    case 'trade':
      body = `,"ltp":${formatFloat32(record.ltp)},"volume":${int(record.volume)},"ltt":${int(record.ltt)},"lut":${int(record.lut)}`;
      break;
    case 'ohlc':
      body = `,"open":${formatFloat32(record.open)},"close":${formatFloat32(record.close)},"high":${formatFloat32(record.high)},"low":${formatFloat32(record.low)}`;
      break;
    case 'prev_close':
      body = `,"prevClose":${formatFloat32(record.prevClose)}`;
      break;
    case 'circuit_limit':
      body = `,"upper":${formatFloat32(record.upper)},"lower":${formatFloat32(record.lower)}`;
      break;
    case 'week52':
      body = `,"high":${formatFloat32(record.high)},"low":${formatFloat32(record.low)}`;
      break;
    case 'market_status':
      body = `,"marketType":[${int(record.marketType[0])},${int(record.marketType[1])},${int(record.marketType[2])}],"status":${int(record.status)}`;
      break;
    case 'error':
      body = `,"code":${int(record.code)}`;
      break;
  }
  return extra === undefined ? `${head}${body}}` : `${head}${body}${extraFields(extra)}}`;
}

/** Every field name of every record type: an extra field may not duplicate one (JSON keys would clash). */
const RESERVED = new Set([
  'type',
  'segment',
  'securityId',
  'ltp',
  'volume',
  'ltt',
  'lut',
  'open',
  'close',
  'high',
  'low',
  'prevClose',
  'upper',
  'lower',
  'marketType',
  'status',
  'code',
]);

export function extraFields(extra: Readonly<Record<string, number | string>>): string {
  let text = '';
  for (const key of Object.keys(extra)) {
    if (RESERVED.has(key)) {
      throw new CodecError(
        'INVALID_RECORD',
        `extra field ${JSON.stringify(key)} would duplicate a record field`,
      );
    }
    const value = extra[key];
    const json =
      typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : JSON.stringify(value);
    text += `,${JSON.stringify(key)}:${json}`;
  }
  return text;
}

/** Integer fields come from the wire as int32/uint8, so String() is exact; guards against NaN only. */
function int(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
