/**
 * Produce request (v3-v8, the non-flexible versions) carrying record batches that are already laid
 * out, and its response, as an API of @platformatic/kafka (`createAPI`), so it travels over that
 * library's connections (framing, correlation, timeouts, SASL/TLS) like its own requests.
 *
 * Why our own request: the library's produce APIs take one object per record and lay the batch out
 * themselves; the ingestor lays out its batches in worker threads, straight from the decoded frames.
 *
 *   Produce Request (Version: 3-8) => transactional_id acks timeout_ms [topic_data]
 *     transactional_id => NULLABLE_STRING
 *     acks => INT16
 *     timeout_ms => INT32
 *     topic_data => name [partition_data]
 *       name => STRING
 *       partition_data => index records
 *         index => INT32
 *         records => RECORDS (INT32 size, then the record batch)
 *
 *   Produce Response (Version: 3-8) => [responses] throttle_time_ms
 *     responses => name [partition_responses]
 *       name => STRING
 *       partition_responses => index error_code base_offset log_append_time_ms
 *                              log_start_offset (v5+) [record_errors] (v8+) error_message (v8+)
 *         record_errors => batch_index batch_index_error_message
 *     throttle_time_ms => INT32
 *
 * The request and response headers of v3-v8 carry no tagged fields.
 */
import { type API, createAPI, type Reader, Writer } from '@platformatic/kafka';

export const PRODUCE_API_KEY = 0;
export const MIN_PRODUCE_VERSION = 3;
export const MAX_PRODUCE_VERSION = 8;

export interface PartitionBatch {
  partition: number;
  /** One complete record batch (or several back to back). */
  records: Uint8Array;
}

export interface TopicBatches {
  topic: string;
  partitions: PartitionBatch[];
}

export interface PartitionAnswer {
  topic: string;
  partition: number;
  errorCode: number;
  baseOffset: bigint;
  errorMessage: string | null;
}

function createRequest(acks: number, timeoutMs: number, topics: TopicBatches[]): Writer {
  const w = Writer.create()
    .appendString(null, false)
    .appendInt16(acks)
    .appendInt32(timeoutMs)
    .appendInt32(topics.length);
  for (const { topic, partitions } of topics) {
    w.appendString(topic, false).appendInt32(partitions.length);
    for (const { partition, records } of partitions) {
      const bytes = Buffer.isBuffer(records)
        ? records
        : Buffer.from(records.buffer, records.byteOffset, records.byteLength);
      w.appendInt32(partition).appendInt32(bytes.length).append(bytes);
    }
  }
  return w;
}

/** Every partition's answer, errors included (the caller decides per partition; nothing is thrown here). */
function parseResponse(
  _correlationId: number,
  _apiKey: number,
  apiVersion: number,
  reader: Reader,
): PartitionAnswer[] {
  const answers: PartitionAnswer[] = [];
  for (let t = reader.readInt32(); t > 0; t--) {
    const topic = reader.readString(false);
    for (let p = reader.readInt32(); p > 0; p--) {
      const partition = reader.readInt32();
      const errorCode = reader.readInt16();
      const baseOffset = reader.readInt64();
      reader.readInt64(); // log_append_time_ms
      if (apiVersion >= 5) reader.readInt64(); // log_start_offset
      let errorMessage: string | null = null;
      if (apiVersion >= 8) {
        for (let e = reader.readInt32(); e > 0; e--) {
          reader.readInt32();
          reader.readNullableString(false);
        }
        errorMessage = reader.readNullableString(false);
      }
      answers.push({ topic, partition, errorCode, baseOffset, errorMessage });
    }
  }
  reader.readInt32(); // throttle_time_ms
  return answers;
}

export type ProduceBatchesAPI = API<
  [acks: number, timeoutMs: number, topics: TopicBatches[]],
  PartitionAnswer[]
>;

const apis = new Map<number, ProduceBatchesAPI>();

/** The API of one version (3-8); all share the request layout, the response grows with the version. */
export function produceBatchesApi(version: number): ProduceBatchesAPI {
  let api = apis.get(version);
  if (!api) {
    api = createAPI(
      PRODUCE_API_KEY,
      version,
      createRequest,
      parseResponse,
      false,
      false,
    ) as ProduceBatchesAPI;
    apis.set(version, api);
  }
  return api;
}
