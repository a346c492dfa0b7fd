/**
 * What the socket's thread reads from a feed message without decoding it (spec: Binary packets):
 * the readiness check needs to know whether the market is open, and an Error packet must close the
 * connection at once; the decode workers are too far from the socket to ask. Both walk the message
 * through the codec's PacketCursor, so they follow the decoder's length rules exactly (a length
 * byte of 1-10 means the code's fixed size; zero, overlong and unknown-short stop the walk) and see
 * the same packets the workers will.
 */
import { MsgCode, PACKET_SIZE, PacketCursor } from '@feedpipe/codec';

// One cursor for the socket's thread: a scan runs to its end before the next begins, and a cursor
// reuses its DataView while messages share a backing buffer, so a scan allocates nothing. Its
// counters are never read here (the workers count the same packets).
const cursor = new PacketCursor();

/** The MarketStatus value of the last Market Status packet in `frame`, or undefined when it holds none. */
export function lastMarketStatus(frame: Uint8Array): number | undefined {
  let status: number | undefined;
  cursor.reset(frame);
  while (cursor.next()) if (cursor.code === MsgCode.MarketStatus) status = cursor.marketStatus;
  return status;
}

/**
 * The disconnection code of a message that is one Error packet and nothing else (the server sends
 * it alone, then closes), or undefined for any other message.
 */
export function loneErrorCode(message: Uint8Array): number | undefined {
  if (message.byteLength !== PACKET_SIZE[MsgCode.Error]) return undefined;
  cursor.reset(message);
  return cursor.next() && cursor.code === MsgCode.Error ? cursor.errorCode : undefined;
}
