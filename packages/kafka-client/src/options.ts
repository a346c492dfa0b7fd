/**
 * Option checking shared by the clients: every client validates its options once, at
 * construction, rejecting unknown keys and bad values with a message naming the key.
 */
import { KafkaClientError } from './errors.js';

/** Options every client takes. */
export interface ConnectionOptions {
  /** Bootstrap brokers, `host:port` (at least one). */
  brokers: readonly string[];
  /** Client id sent to the broker. Default `feedpipe`. */
  clientId?: string;
  /** Request timeout in ms. Default 30,000. */
  requestTimeoutMs?: number;
}

export const CONNECTION_KEYS = ['brokers', 'clientId', 'requestTimeoutMs'] as const;

/** `host:port` (checked by checkOptions) as the library's Broker. */
export function brokerOf(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

export function checkOptions(
  what: string,
  options: object,
  known: readonly string[],
  positiveIntegers: readonly string[] = [],
): void {
  const allowed = new Set(known);
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        `unknown ${what} option "${key}" (allowed: ${known.join(', ')})`,
      );
    }
  }
  const brokers = (options as { brokers?: unknown }).brokers;
  if (allowed.has('brokers')) {
    if (
      !Array.isArray(brokers) ||
      brokers.length === 0 ||
      !brokers.every((b) => typeof b === 'string' && /^[^:\s]+:\d+$/.test(b))
    ) {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        `${what} option "brokers" must list at least one host:port`,
      );
    }
  }
  for (const key of positiveIntegers) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)) {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        `${what} option "${key}" must be a positive integer, got ${String(value)}`,
      );
    }
  }
}
