/**
 * The framing between the store and its engine process (engine-host.ts): a message is a JSON head
 * and an optional binary body, each preceded by its length (two big-endian uint32). A body travels
 * as bytes, never inside the JSON, so a CSV insert or a Parquet answer is not re-encoded on either
 * side.
 */

/** A head larger than this is a broken peer, not a message: statements are far smaller. */
const MAX_HEAD_BYTES = 16 * 1024 * 1024;
const PREFIX_BYTES = 8;

export type Head = Record<string, unknown>;

export interface EngineMessage {
  head: Head;
  body: Buffer;
}

const NO_BODY = Buffer.alloc(0);

/** The chunks of one message, to be written in order. */
export function encodeMessage(head: Head, body: Buffer = NO_BODY): Buffer[] {
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const prefix = Buffer.allocUnsafe(PREFIX_BYTES);
  prefix.writeUInt32BE(headBytes.length, 0);
  prefix.writeUInt32BE(body.length, 4);
  return body.length === 0 ? [prefix, headBytes] : [prefix, headBytes, body];
}

/** Reassembles messages from the chunks of a byte stream, whatever their boundaries. */
export class MessageReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** The messages completed by `chunk`, in order. Throws on a head no peer of ours would send. */
  push(chunk: Buffer): EngineMessage[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const messages: EngineMessage[] = [];
    while (this.#pendingBytes >= PREFIX_BYTES) {
      const prefix = this.#peek(PREFIX_BYTES);
      const headLength = prefix.readUInt32BE(0);
      const bodyLength = prefix.readUInt32BE(4);
      if (headLength > MAX_HEAD_BYTES) throw new Error(`engine message head of ${headLength} bytes`);
      const total = PREFIX_BYTES + headLength + bodyLength;
      if (this.#pendingBytes < total) break;
      const whole = this.#take(total);
      const head = JSON.parse(whole.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headLength)) as Head;
      messages.push({ head, body: whole.subarray(PREFIX_BYTES + headLength) });
    }
    return messages;
  }

  #peek(bytes: number): Buffer {
    if ((this.#pending[0] as Buffer).length < bytes) this.#pending = [Buffer.concat(this.#pending)];
    return this.#pending[0] as Buffer;
  }

  #take(bytes: number): Buffer {
    // #peek joins the chunks when the first is short, so `first` holds the whole message: a large
    // body arriving in many chunks is joined once, when it is complete.
    const first = this.#peek(bytes);
    const rest = this.#pending.slice(1);
    this.#pending = first.length > bytes ? [first.subarray(bytes), ...rest] : rest;
    this.#pendingBytes -= bytes;
    return first.subarray(0, bytes);
  }
}

/** An error as it crosses the link: the fields the store's side rebuilds it from (engine-process.ts). */
export interface WireError {
  message: string;
  name?: string;
  code?: string;
  type?: string;
}

export function wireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, type } = error as { code?: unknown; type?: unknown };
  return {
    message: error.message,
    name: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof type === 'string' ? { type } : {}),
  };
}
