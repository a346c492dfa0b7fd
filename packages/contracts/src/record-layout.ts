/**
 * The canonical JSON layout of each record type: field names, their order and the kind of value
 * each holds. One definition, read by every writer and reader of the text:
 *   - packages/codec's JSON writers (writeRowJson, the ingestor's per-row serialisation, and
 *     recordToJson) walk these fields in this order;
 *   - services/feed-sink's fast path matches the writer's text byte by byte against literals derived
 *     from these fields, and its re-parse reads the same names.
 * So a renamed or reordered field changes the writer and its readers together.
 *
 * The text of a record is `{"type":"<type>","<field>":<value>,...}`; a Kafka value of the feed topics
 * is the same with `receivedAt` (the receive time, epoch microseconds) appended as the last field.
 * Values are plain JSON: integers in decimal, float32 values in their shortest round-trip spelling
 * (`null` when not finite), `uint8Triple` as `[a,b,c]`. The text is ASCII.
 */
import type { FeedRecord, FeedRecordType, GapRecord } from './records.js';

/**
 * What one field holds. The integer kinds name the range the value fits (and so the column it can be
 * stored in): `uint32` is the security id, written by the codec as the wire's int32 (readers take a
 * negative value as its unsigned twin); `epochSeconds` a trade or update time (UTC seconds);
 * `epochMicros` the receive time (below 2^53).
 */
export type FieldKind =
  | 'uint8'
  | 'uint32'
  | 'int16'
  | 'int32'
  | 'epochSeconds'
  | 'epochMicros'
  | 'float32'
  | 'uint8Triple'
  /** A short lower-case token from a fixed set (`[a-z_]`, at most 32 characters), e.g. a gap cause. */
  | 'token'
  /** A count below 2^31 (a step of an int32 cumulative volume), or null when the writer does not know it. */
  | 'countOrNull';

/** The record's own field names of type `T` (`type` excluded). */
export type RecordFieldName<T extends FeedRecordType> = Exclude<
  keyof Extract<FeedRecord, { type: T }>,
  'type'
> &
  string;

export interface RecordField<N extends string = string> {
  readonly name: N;
  readonly kind: FieldKind;
  /**
   * The column of the record type's feed table (tables/feed-tables.ts) that stores this field as it
   * is; undefined when the table stores it otherwise (reference values go to value1/value2).
   */
  readonly column: string | undefined;
  /**
   * The version of the topic's schema that added the field (record-schema-ids.ts). A field added
   * after the first version is optional there, so a reader of the new version reads the records
   * written before it too.
   */
  readonly addedIn: number;
}

export interface RecordLayout<T extends FeedRecordType = FeedRecordType> {
  readonly type: T;
  /** The record's fields after `type`, in text order. */
  readonly fields: readonly RecordField<RecordFieldName<T>>[];
}

const field = <N extends string>(name: N, kind: FieldKind, column?: string, addedIn = 1): RecordField<N> =>
  Object.freeze({ name, kind, column, addedIn });

const SEGMENT = field('segment', 'uint8', 'segment');
const SECURITY_ID = field('securityId', 'uint32', 'security_id');

function layout<T extends FeedRecordType>(
  type: T,
  fields: readonly RecordField<RecordFieldName<T>>[],
): RecordLayout<T> {
  return Object.freeze({ type, fields: Object.freeze(fields) });
}

/** Every record type's layout. Every type starts with segment and securityId. */
export const RECORD_LAYOUTS: { readonly [T in FeedRecordType]: RecordLayout<T> } = Object.freeze({
  trade: layout('trade', [
    SEGMENT,
    SECURITY_ID,
    field('ltp', 'float32', 'ltp'),
    field('volume', 'int32', 'volume'),
    field('ltt', 'epochSeconds', 'ltt'),
    field('lut', 'epochSeconds', 'lut'),
  ]),
  ohlc: layout('ohlc', [
    SEGMENT,
    SECURITY_ID,
    field('open', 'float32', 'open'),
    field('close', 'float32', 'close'),
    field('high', 'float32', 'high'),
    field('low', 'float32', 'low'),
  ]),
  prev_close: layout('prev_close', [SEGMENT, SECURITY_ID, field('prevClose', 'float32')]),
  circuit_limit: layout('circuit_limit', [
    SEGMENT,
    SECURITY_ID,
    field('upper', 'float32'),
    field('lower', 'float32'),
  ]),
  week52: layout('week52', [SEGMENT, SECURITY_ID, field('high', 'float32'), field('low', 'float32')]),
  market_status: layout('market_status', [
    SEGMENT,
    SECURITY_ID,
    field('marketType', 'uint8Triple', 'market_type'),
    field('status', 'int32', 'status'),
  ]),
  error: layout('error', [SEGMENT, SECURITY_ID, field('code', 'int16', 'error_code')]),
});

/** The record types in the order this contract lists them. */
export const RECORD_TYPES: readonly FeedRecordType[] = Object.freeze(
  Object.keys(RECORD_LAYOUTS) as FeedRecordType[],
);

/** The field a feed topic's value carries after the record's own: the receive time. */
export const RECEIVED_AT_FIELD: RecordField<'receivedAt'> = field('receivedAt', 'epochMicros', 'received_at');

/**
 * The field a trade's Kafka value carries after receivedAt since feed.trades@2: the trade's traded
 * quantity as the ingestor reckons it (traded-quantity.ts), null when it does not know the
 * instrument's previous trade. No column takes it as it is: the sink reckons the stored quantity
 * itself (services/feed-sink/src/trade-quantities.ts says why).
 */
export const QUANTITY_FIELD: RecordField<'quantity'> = field('quantity', 'countOrNull', undefined, 2);

/** Every name a record field has in some type (`type` included): extra fields may not reuse one. */
export const RECORD_FIELD_NAMES: ReadonlySet<string> = new Set([
  'type',
  ...RECORD_TYPES.flatMap((type) => RECORD_LAYOUTS[type].fields.map((f) => f.name)),
]);

/**
 * The literal text around the fields of `type`'s JSON: literals[i] precedes field i and the last one
 * closes the object, so the text is literals[0] value0 literals[1] value1 ... literals[n].
 * `fields` defaults to the record's own; feed values pass FEED_VALUE_FIELDS[type].
 */
export function jsonLiterals(
  type: FeedRecordType,
  fields: readonly RecordField[] = RECORD_LAYOUTS[type].fields,
): readonly string[] {
  const literals = fields.map((f, i) => `${i === 0 ? `{"type":"${type}",` : ','}"${f.name}":`);
  literals.push('}');
  return literals;
}

/** The fields a feed topic's Kafka value of each type carries after receivedAt. */
const LATER_VALUE_FIELDS: Partial<Record<FeedRecordType, readonly RecordField[]>> = {
  trade: [QUANTITY_FIELD],
};

/**
 * The fields of a feed topic's Kafka value of each type: the record's, then receivedAt, then those
 * its topic's later schema versions added (a trade's quantity).
 */
export const FEED_VALUE_FIELDS: { readonly [T in FeedRecordType]: readonly RecordField[] } = Object.freeze(
  Object.fromEntries(
    RECORD_TYPES.map((type) => [
      type,
      Object.freeze([...RECORD_LAYOUTS[type].fields, RECEIVED_AT_FIELD, ...(LATER_VALUE_FIELDS[type] ?? [])]),
    ]),
  ) as { [T in FeedRecordType]: readonly RecordField[] },
);

/**
 * The layout of the `gap` record (records.ts): written by the ingestor itself to the status topic,
 * stored by the sink in market.feed_gaps (tables/feed-tables.ts). Kept apart from RECORD_LAYOUTS,
 * whose types are the feed's wire packets; the same rules hold (field order is the text order,
 * `column` is the table column that stores the field).
 */
export const GAP_LAYOUT: {
  readonly type: 'gap';
  readonly fields: readonly RecordField<Exclude<keyof GapRecord, 'type'>>[];
} = Object.freeze({
  type: 'gap',
  fields: Object.freeze([
    SEGMENT,
    SECURITY_ID,
    field('subscription', 'token', 'subscription'),
    field('cause', 'token', 'cause'),
    field('startedAt', 'epochMicros', 'started_at'),
    field('endedAt', 'epochMicros', 'ended_at'),
    field('connection', 'uint8', 'connection'),
  ]),
});
