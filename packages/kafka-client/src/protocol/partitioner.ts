/**
 * The partition of a key as Java's default partitioner picks it (murmur2, sign bit masked, modulo the
 * partition count), so a record lands where any Java-compatible producer (librdkafka's
 * murmur2_random, the Node clients' Java-compatible partitioners) would put it. The hash is @platformatic/kafka's public murmur2.
 */
import { murmur2 } from '@platformatic/kafka';

export function partitionOf(key: Uint8Array, partitionCount: number): number {
  const buffer = Buffer.isBuffer(key) ? key : Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return (murmur2(buffer, false) & 0x7fffffff) % partitionCount;
}
