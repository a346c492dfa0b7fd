// Public surface of @feedpipe/codec: the live feed's wire format.

export type {
  CircuitLimitRecord,
  ErrorRecord,
  FeedRecord,
  FeedRecordType,
  MarketStatusRecord,
  OhlcRecord,
  PrevCloseRecord,
  TradeRecord,
  Week52Record,
} from '@feedpipe/contracts';
export {
  CAPTURE_MAGIC,
  CAPTURE_RECORD_HEADER_SIZE,
  CaptureParser,
  type CaptureRecord,
  CaptureWriter,
  type CaptureWriterOptions,
  DEFAULT_MAX_CAPTURE_PAYLOAD,
  DEFAULT_MAX_PACK_BYTES,
  FramePackBuilder,
  type ReadCaptureOptions,
  readCapture,
} from './capture/index.js';
export { type DecodePosition, decodeFramesToColumns, newDecodePosition } from './decode/columnar.js';
export {
  ColumnarBatch,
  MAX_BATCH_CAPACITY,
  MAX_BATCH_FRAMES,
  ROW_WORDS,
  RowWord,
} from './decode/columnar-batch.js';
export { addDecodeCounters, type DecodeCounters, newDecodeCounters } from './decode/counters.js';
export { PacketCursor } from './decode/packet-cursor.js';
export { cursorRecord, type DecodeRecordsOptions, decodeFrameToRecords } from './decode/records.js';
export { encodedSize, encodeFrame, encodeRecord } from './encode/encode-record.js';
export { DEFAULT_FRAME_BUILDER_CAPACITY, FrameBuilder, MAX_FRAME_BYTES } from './encode/frame-builder.js';
export { CodecError, type CodecErrorCode } from './errors.js';
export { formatFloat32 } from './json/float32.js';
export { recordToJson } from './json/record-json.js';
export { recordFromJson } from './json/record-parse.js';
export { MAX_ROW_JSON_BYTES, writeRowJson } from './json/row-json-bytes.js';
export { buildDisconnectRequest, buildSubscriptionRequests } from './requests/build.js';
export {
  type ClientRequest,
  type InstrumentRef,
  MAX_INSTRUMENTS_PER_REQUEST,
  MAX_SUBSCRIPTIONS_PER_CONNECTION,
  RequestCode,
  type RequestCodeValue,
  type SubscriptionRequestCode,
} from './requests/constants.js';
export { MAX_REQUEST_TEXT_LENGTH, parseClientRequest } from './requests/parse.js';
export {
  FEED_ERROR_CODES,
  type FeedErrorCode,
  HEADER_SIZE,
  isFeedErrorCode,
  MsgCode,
  type MsgCodeValue,
  PACKET_SIZE,
  SEGMENT_INX_EQ,
} from './wire/constants.js';
export { isNoDataYet } from './wire/no-data-yet.js';
export { CODE_BY_RECORD_TYPE, RECORD_TYPE_BY_CODE } from './wire/record-types.js';
