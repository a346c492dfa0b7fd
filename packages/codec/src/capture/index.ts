export {
  CAPTURE_MAGIC,
  CAPTURE_RECORD_HEADER_SIZE,
  type CaptureRecord,
  DEFAULT_MAX_CAPTURE_PAYLOAD,
} from './format.js';
export { DEFAULT_MAX_PACK_BYTES, FramePackBuilder } from './pack.js';
export { CaptureParser } from './parser.js';
export { type ReadCaptureOptions, readCapture } from './reader.js';
export { CaptureWriter, type CaptureWriterOptions } from './writer.js';
