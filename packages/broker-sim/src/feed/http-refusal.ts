/**
 * Answers an upgrade request without accepting it. The body text is shown to the peer, so callers
 * pass fixed problem descriptions, never request values such as tokens.
 */
import type { Duplex } from 'node:stream';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

export function refuseUpgrade(socket: Duplex, status: number, body: string): void {
  socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = `${body}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** The spec's other failed-upgrade shape: the server closes the handshake without any HTTP response. */
export function dropUpgrade(socket: Duplex): void {
  socket.on('error', () => {});
  socket.destroy();
}
