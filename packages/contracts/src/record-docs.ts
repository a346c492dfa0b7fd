/**
 * What each feed record type and each of its fields means, for the people and tools that read the
 * records outside this code: the JSON Schemas of the topics (schemas/record-schemas.ts) take every
 * description from here. Typed against the record types, so a new record type or field does not
 * compile until it is documented, and the published schemas cannot omit it.
 *
 * Facts follow the upstream service's interface (global stocks live feed, "Binary packets"): the
 * wire's numbers are kept as they are (segment codes, epoch seconds, float32 prices); what the
 * service does not publish (MarketType and MarketStatus meanings) is said to be unpublished.
 */
import type { RecordFieldName } from './record-layout.js';
import type { FeedRecordType, GapRecord } from './records.js';

export interface RecordDoc<T extends FeedRecordType> {
  /** One paragraph: which packet the record comes from and when the feed sends it. */
  readonly summary: string;
  /** Every field's meaning, unit and time zone. */
  readonly fields: { readonly [N in RecordFieldName<T>]: string };
}

/** The exchange segment field, common to every record type. */
const SEGMENT =
  'Exchange segment, as the numeric code of the packet header: 14 = INX_EQ (global stocks, the only segment this feed serves). Error packets carry 0. Other codes of the exchange-segment enumeration (NSE_EQ, NSE_FNO, NSE_COMM, BSE_EQ, BSE_FNO, MCX_COMM, IDX_I) are not served by this feed.';
/** The security id field, common to every record type. */
const SECURITY_ID =
  "Security id of the instrument (the id subscribed with, as a number). The wire's int32: a negative value stands for the unsigned id value + 2^32. 0 where the packet names no instrument (market status, error).";
const PRICE =
  'float32, in the currency of the instrument (USD for INX_EQ); null when the wire value is not finite.';
const EPOCH_SECONDS =
  'UTC Unix epoch seconds (int32; multiply by 1000 for milliseconds). 0, or a time near 1970, means the service did not populate it.';

export const RECORD_DOCS: { readonly [T in FeedRecordType]: RecordDoc<T> } = Object.freeze({
  trade: {
    summary:
      'Trade packet (message code 1): sent once as the snapshot when Subscribe Trade (request 15) takes effect, then on every trade of the instrument.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      ltp: `Last traded price: ${PRICE}`,
      volume: 'Traded volume of the session in shares, cumulative (never decreases within a session); int32.',
      ltt: `Last trade time: ${EPOCH_SECONDS}`,
      lut: `Last update time: ${EPOCH_SECONDS}`,
    },
  },
  ohlc: {
    summary:
      'OHLC packet (message code 3): the session snapshot after Subscribe OHLC (request 17), then every update.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      open: `Session open price: ${PRICE}`,
      close: `Session close price as the feed reports it: ${PRICE}`,
      high: `Session high price: ${PRICE}`,
      low: `Session low price: ${PRICE}`,
    },
  },
  prev_close: {
    summary:
      'Previous Close packet (message code 32): sent once per instrument after its Trade snapshot on Subscribe Trade.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      prevClose: `Closing price of the previous session: ${PRICE}`,
    },
  },
  circuit_limit: {
    summary:
      'Circuit Limit packet (message code 33): the price band, sent once per instrument on Subscribe Trade and again when it becomes known. Zero-filled "no data yet" packets (security id 0) are not published: the ingestor counts them (ingestor_no_data_yet_packets_total) and the real values follow on the same topic once the service has them.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      upper: `Upper circuit limit: ${PRICE}`,
      lower: `Lower circuit limit: ${PRICE}`,
    },
  },
  week52: {
    summary:
      '52-Week High/Low packet (message code 36): sent once per instrument on Subscribe Trade and again when it becomes known. Zero-filled "no data yet" packets (security id 0) are not published, as for circuit_limit.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      high: `52-week high price: ${PRICE}`,
      low: `52-week low price: ${PRICE}`,
    },
  },
  market_status: {
    summary:
      'Market Status packet (message code 29): pushed at market open, close and similar session changes; security id 0.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      marketType:
        'MarketType: the three bytes of the packet, each 0..255, as sent (their meaning is not published by the service).',
      status: 'MarketStatus: int32 as sent (the meaning of its values is not published by the service).',
    },
  },
  error: {
    summary:
      'Error packet (message code 50): the service refuses or ends the connection and closes it after this packet; segment 0 and security id 0.',
    fields: {
      segment: SEGMENT,
      securityId: SECURITY_ID,
      code: 'Disconnection code (int16): 805 connection limit exceeded, 806 payment not done for broadcast, 807 token expired, 808 authentication failure, 809 invalid token.',
    },
  },
});

/** The receive time a feed topic's value appends to the record's own fields. */
export const RECEIVED_AT_DOC =
  "When the ingestor received the WebSocket frame that carried the packet: UTC Unix epoch microseconds (divide by 1000 for milliseconds). The feed's own times are ltt/lut.";

/** The trade's traded quantity (QUANTITY_FIELD, since feed.trades@2). */
export const QUANTITY_DOC =
  "Traded quantity of this trade in shares, as the ingestor reckons it: its cumulative day volume minus that of the instrument's previous trade of the same UTC day (by ltt), at least 0; a day's first trade counts its whole volume. null: unknown to the ingestor (such as the instrument's first trade after a cold start, a crash or a failover, or a trade of an earlier day than one before it; docs/kafka.md says when); the stored column quantity of market.ticks is authoritative. Absent on records of feed.trades@1 and on records a replay wrote. Added in feed.trades@2.";

/** The `gap` record (GAP_LAYOUT): written by the ingestor itself, not decoded from the feed. */
export const GAP_DOC: {
  readonly summary: string;
  readonly fields: { readonly [N in Exclude<keyof GapRecord, 'type'>]: string };
} = Object.freeze({
  summary:
    'One closed interval of the ledger of gaps: the instrument\'s subscription was not live from startedAt to endedAt (docs/architecture.md, "The ledger of gaps"). Written by the feed ingestor when the interval ends (or at the next start, for the time the process was stopped); stored in market.feed_gaps.',
  fields: {
    segment: SEGMENT,
    securityId: SECURITY_ID,
    subscription: "Which subscription of the instrument was not live: 'trade' (trade packets) or 'ohlc'.",
    cause:
      'Why: connection_down (closed by the server or the network, or silent), reconnect_pending (closed by the ingestor to reconnect), eviction (Error 805), token_renewal (the token was renewed: refused by the service, or renewed ahead of expiry, and the connection reconnected with the new one), backpressure (reading paused while Kafka lagged), process_stopped (the ingestor was not running), stale (no trade for the configured time while the market was open), handover (a planned handover to the standby ingestor moved the connection), failover (the leading ingestor died or froze and the standby took over).',
    startedAt: 'Start of the interval: UTC Unix epoch microseconds (the ingestor clock).',
    endedAt: 'End of the interval (exclusive): UTC Unix epoch microseconds (the ingestor clock).',
    connection: 'Index (0-based) of the ingestor connection that holds the subscription.',
  },
});
