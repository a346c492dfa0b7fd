/**
 * Fetch request (v4-v11, the non-flexible versions that still name topics) and its response, as an
 * API of @platformatic/kafka (`createAPI`), so it travels over that library's connections like its
 * own requests. Kafka 4.x serves Fetch v4-v18 (v0-v3 went with KIP-896); v11 is the newest that
 * needs neither topic ids (v13+) nor tagged fields (v12+), and nothing we ask for came later.
 *
 * Why our own: the library's Fetch parser builds several objects per record. This parser makes the
 * response one contiguous Buffer (the connection hands it over as the socket's chunks; one copy
 * joins them) and leaves each partition's records as a view into it, for record-batch-reader.ts to
 * decode in place.
 *
 *   Fetch Request (Version: 4-11) => replica_id max_wait_ms min_bytes max_bytes isolation_level
 *                                    session_id (v7+) session_epoch (v7+) [topics]
 *                                    [forgotten_topics_data] (v7+) rack_id (v11+)
 *     topics => topic [partitions]
 *       partitions => partition current_leader_epoch (v9+) fetch_offset log_start_offset (v5+)
 *                     partition_max_bytes
 *     forgotten_topics_data => topic [partitions]
 *
 *   Fetch Response (Version: 4-11) => throttle_time_ms error_code (v7+) session_id (v7+) [responses]
 *     responses => topic [partitions]
 *       partitions => partition_index error_code high_watermark last_stable_offset
 *                     log_start_offset (v5+) [aborted_transactions] preferred_read_replica (v11+)
 *                     records
 *         aborted_transactions => producer_id first_offset
 *         records => RECORDS (INT32 size, -1 for null)
 *
 * Fetch sessions (KIP-227) are not used: session_id 0 with epoch -1 asks for a full fetch each time,
 * which costs a few bytes per partition and keeps no state on the broker to lose in a restart.
 */
import { type API, createAPI, type Reader, Writer } from '@platformatic/kafka';

export const FETCH_API_KEY = 1;
export const MIN_FETCH_VERSION = 4;
export const MAX_FETCH_VERSION = 11;

/** read_uncommitted: every appended record (our producers are idempotent, not transactional). */
const READ_UNCOMMITTED = 0;
const EMPTY = Buffer.alloc(0);

export interface FetchPartitionRequest {
  partition: number;
  /** The next offset to read. */
  offset: number;
  maxBytes: number;
}

export interface FetchTopicRequest {
  topic: string;
  partitions: FetchPartitionRequest[];
}

export interface FetchPartitionAnswer {
  topic: string;
  partition: number;
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  /** -1 before v5. */
  logStartOffset: bigint;
  /** The partition's record batches: a view into the response (the last one may be cut short). */
  records: Buffer;
}

export interface FetchAnswer {
  /** Request-level error (v7+; 0 before). */
  errorCode: number;
  throttleTimeMs: number;
  partitions: FetchPartitionAnswer[];
  /** Size of the response body, for byte counters. */
  bytes: number;
}

function createRequest(
  maxWaitMs: number,
  minBytes: number,
  maxBytes: number,
  topics: FetchTopicRequest[],
  version: number,
): Writer {
  const w = Writer.create()
    .appendInt32(-1)
    .appendInt32(maxWaitMs)
    .appendInt32(minBytes)
    .appendInt32(maxBytes)
    .appendInt8(READ_UNCOMMITTED);
  if (version >= 7) w.appendInt32(0).appendInt32(-1);
  w.appendInt32(topics.length);
  for (const { topic, partitions } of topics) {
    w.appendString(topic, false).appendInt32(partitions.length);
    for (const p of partitions) {
      w.appendInt32(p.partition);
      if (version >= 9) w.appendInt32(-1); // current_leader_epoch: not checked
      w.appendInt64(BigInt(p.offset));
      if (version >= 5) w.appendInt64(-1n); // log_start_offset: only followers send one
      w.appendInt32(p.maxBytes);
    }
  }
  if (version >= 7) w.appendInt32(0); // forgotten_topics_data
  if (version >= 11) w.appendString('', false); // rack_id
  return w;
}

/** Decodes the response over one contiguous copy of it; the records stay views into that copy. */
function parseResponse(
  _correlationId: number,
  _apiKey: number,
  version: number,
  reader: Reader,
): FetchAnswer {
  const whole = reader.buffer.slice(reader.position, reader.buffer.length);
  let at = 0;
  const int16 = () => {
    const v = whole.readInt16BE(at);
    at += 2;
    return v;
  };
  const int32 = () => {
    const v = whole.readInt32BE(at);
    at += 4;
    return v;
  };
  const int64 = () => {
    const v = whole.readBigInt64BE(at);
    at += 8;
    return v;
  };
  const string = () => {
    const length = int16();
    const s = whole.toString('utf8', at, at + length);
    at += length;
    return s;
  };
  const throttleTimeMs = int32();
  let errorCode = 0;
  if (version >= 7) {
    errorCode = int16();
    int32(); // session_id
  }
  const partitions: FetchPartitionAnswer[] = [];
  for (let t = int32(); t > 0; t--) {
    const topic = string();
    for (let p = int32(); p > 0; p--) {
      const partition = int32();
      const code = int16();
      const highWatermark = int64();
      const lastStableOffset = int64();
      const logStartOffset = version >= 5 ? int64() : -1n;
      const aborted = int32();
      if (aborted > 0) at += aborted * 16; // producer_id, first_offset: read_uncommitted ignores them
      if (version >= 11) int32(); // preferred_read_replica: we read from the leader
      const size = int32();
      const records = size > 0 ? whole.subarray(at, at + size) : EMPTY;
      if (size > 0) at += size;
      partitions.push({
        topic,
        partition,
        errorCode: code,
        highWatermark,
        lastStableOffset,
        logStartOffset,
        records,
      });
    }
  }
  return { errorCode, throttleTimeMs, partitions, bytes: whole.length };
}

export type FetchRecordsAPI = API<
  [maxWaitMs: number, minBytes: number, maxBytes: number, topics: FetchTopicRequest[], version: number],
  FetchAnswer
>;

const apis = new Map<number, FetchRecordsAPI>();

/** The API of one version (4-11); the request takes its own version to lay out the fields it has. */
export function fetchRecordsApi(version: number): FetchRecordsAPI {
  let api = apis.get(version);
  if (!api) {
    api = createAPI(FETCH_API_KEY, version, createRequest, parseResponse, false, false) as FetchRecordsAPI;
    apis.set(version, api);
  }
  return api;
}
