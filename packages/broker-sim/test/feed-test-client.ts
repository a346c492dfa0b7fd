/** A recording `ws` client for the feed tests: every binary message kept, close code and reason captured. */
import { decodeFrameToRecords, type FeedRecord } from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { WebSocket } from 'ws';

/** Packets in one message, by walking the header length bytes (byte 9), as a counting client does. */
export function countPackets(message: Uint8Array): number {
  let n = 0;
  for (let off = 0; off + 11 <= message.length; ) {
    const length = message[off + 9] ?? 0;
    if (length === 0) break;
    n++;
    off += length;
  }
  return n;
}

/** Every packet as sent, the zero-filled "no data yet" ones included (the ingestor drops those). */
export function decodeAll(messages: readonly Uint8Array[]): FeedRecord[] {
  return messages.flatMap((m) => decodeFrameToRecords(m, undefined, { keepNoDataYet: true }));
}

export interface Closed {
  code: number;
  reason: string;
}

export class TestClient {
  readonly ws: WebSocket;
  readonly messages: Uint8Array[] = [];
  readonly texts: string[] = [];
  pings = 0;
  closed: Closed | undefined;
  opened = false;

  constructor(url: string, options: { autoPong?: boolean } = {}) {
    this.ws = new WebSocket(url, { perMessageDeflate: false, autoPong: options.autoPong ?? true });
    this.ws.on('open', () => {
      this.opened = true;
    });
    this.ws.on('message', (data, isBinary) => {
      const bytes = data as Buffer;
      if (isBinary)
        this.messages.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice());
      else this.texts.push(bytes.toString('utf8'));
    });
    this.ws.on('ping', () => {
      this.pings++;
    });
    this.ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString('utf8') };
    });
    this.ws.on('error', () => {});
  }

  records(): FeedRecord[] {
    return decodeAll(this.messages);
  }

  packetCount(): number {
    let n = 0;
    for (const m of this.messages) n += countPackets(m);
    return n;
  }

  send(text: string): void {
    this.ws.send(text);
  }

  async waitOpen(timeoutMs = 5_000): Promise<void> {
    await waitFor(() => this.opened || this.closed !== undefined, timeoutMs, 'client open');
    if (!this.opened) throw new Error(`connection closed before open: ${JSON.stringify(this.closed)}`);
  }

  async waitClosed(timeoutMs = 5_000): Promise<Closed> {
    await waitFor(() => this.closed !== undefined, timeoutMs, 'client close');
    return this.closed as Closed;
  }

  async waitPackets(count: number, timeoutMs = 5_000): Promise<void> {
    await waitFor(() => this.packetCount() >= count, timeoutMs, `${count} packets`);
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The outcome of an upgrade attempt: 'open', an HTTP status, or 'eof' when no response came. */
export function upgradeOutcome(url: string, timeoutMs = 5_000): Promise<'open' | 'eof' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('upgrade outcome timed out'));
    }, timeoutMs);
    const done = (value: 'open' | 'eof' | number): void => {
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      resolve(value);
    };
    ws.on('open', () => done('open'));
    ws.on('unexpected-response', (_req, res) => done(res.statusCode ?? 0));
    ws.on('error', () => done('eof'));
  });
}
