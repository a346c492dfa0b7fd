/** The order-update hub's bounds: the total, and each key's share of it, through every way out. */
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../src/postbacks/order-event.js';
import { UpdateHub } from '../src/postbacks/update-hub.js';

const EVENT = { orderId: 'O1', securityId: '1', clientId: 'c' } as OrderEvent;
const noop = () => {};

describe('UpdateHub', () => {
  it('refuses a key past its share while other keys still subscribe, up to the total', () => {
    const hub = new UpdateHub(3, 2);
    expect(typeof hub.subscribe({}, () => true, noop, 'a')).toBe('function');
    expect(typeof hub.subscribe({}, () => true, noop, 'a')).toBe('function');
    expect(hub.subscribe({}, () => true, noop, 'a')).toBe('key-full');
    expect(typeof hub.subscribe({}, () => true, noop, 'b')).toBe('function');
    expect(hub.subscribe({}, () => true, noop, 'c')).toBe('full');
    expect([hub.size, hub.sizeOf('a'), hub.sizeOf('b')]).toEqual([3, 2, 1]);
  });

  it('gives the slot back on unsubscribe and on a drop of a slow subscriber, once each', () => {
    const hub = new UpdateHub(10, 2);
    const off = hub.subscribe({}, () => true, noop, 'a');
    let dropped = 0;
    hub.subscribe(
      {},
      () => false,
      () => {
        dropped += 1;
      },
      'a',
    );
    hub.publish([EVENT], [1]);
    expect([dropped, hub.sizeOf('a')]).toEqual([1, 1]);
    if (typeof off !== 'function') throw new Error('subscribed');
    off();
    off();
    expect([hub.size, hub.sizeOf('a')]).toEqual([0, 0]);
    expect(typeof hub.subscribe({}, () => true, noop, 'a')).toBe('function');
    hub.close();
    expect([hub.size, hub.sizeOf('a')]).toEqual([0, 0]);
  });
});
