/**
 * The calls between npm start and its gateway process (scripts/start/child/), over a pair of
 * in-memory channel ends that clone every message the way Node's `advanced` IPC serialization
 * does (v8's serializer), so what arrives is what a forked child would receive.
 */
import { EventEmitter } from 'node:events';
import { deserialize, serialize } from 'node:v8';
import { BrokerApiError, RateLimiter } from '@feedpipe/broker-api';
import { StoreError } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import {
  offerAccount,
  ParentPacedLimiter,
  parentTokens,
  SHARED_CATEGORIES,
} from '../scripts/start/child/account-calls.js';
import { CallChannel, type MessageEnd } from '../scripts/start/child/calls.js';

interface End extends MessageEnd {
  disconnect(): void;
}

/** Two connected ends; a message crosses cloned, a turn of the event loop later, as over IPC. */
function channelPair(): [End, End] {
  const make = (): End & { peer?: End; events: EventEmitter } => {
    const events = new EventEmitter();
    const end = {
      events,
      connected: true,
      on: (event: string, listener: (...args: unknown[]) => void) => events.on(event, listener),
      send(message: unknown, callback: (error: Error | null) => void) {
        if (!end.connected) {
          callback(new Error('channel closed'));
          return false;
        }
        const copy = deserialize(serialize(message));
        setImmediate(() => (end.peer as End & { events: EventEmitter }).events.emit('message', copy));
        callback(null);
        return true;
      },
      disconnect() {
        for (const side of [end, end.peer as End & { events: EventEmitter; connected: boolean }]) {
          side.connected = false;
          side.events.emit('disconnect');
        }
      },
    } as End & { peer?: End; events: EventEmitter; connected: boolean };
    return end;
  };
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

describe('calls between npm start and a child process', () => {
  it('answer with values as structured clone carries them (bigint, Date, bytes)', async () => {
    const [parentEnd, childEnd] = channelPair();
    const parent = new CallChannel(parentEnd);
    const child = new CallChannel(childEnd);
    parent.handle('echo', (value: unknown) => value);
    const sent = { n: 2n ** 63n, at: new Date(0), bytes: Buffer.from('feed') };
    const back = await child.call<typeof sent>('echo', sent);
    expect(back.n).toBe(sent.n);
    expect(back.at.getTime()).toBe(0);
    expect(Buffer.from(back.bytes).toString()).toBe('feed');
  });

  it("rebuild the handler's error as the type its callers check: code, retryable, retryAt", async () => {
    const [parentEnd, childEnd] = channelPair();
    const parent = new CallChannel(parentEnd);
    const child = new CallChannel(childEnd);
    parent.handle('store', () => {
      throw new StoreError('STORE_ENGINE_LOST', 'the engine went away', { retryable: true });
    });
    parent.handle('broker', () => {
      throw new BrokerApiError({
        code: 'BUDGET_EXHAUSTED',
        message: 'no slot today',
        retryAt: 42,
        route: 'GET /x',
      });
    });
    const storeError = await child.call('store').catch((error: unknown) => error);
    expect(storeError).toBeInstanceOf(StoreError);
    expect(storeError).toMatchObject({
      code: 'STORE_ENGINE_LOST',
      retryable: true,
      message: 'the engine went away',
    });
    const brokerError = await child.call('broker').catch((error: unknown) => error);
    expect(brokerError).toBeInstanceOf(BrokerApiError);
    expect(brokerError).toMatchObject({ code: 'BUDGET_EXHAUSTED', retryAt: 42, route: 'GET /x' });
    await expect(child.call('nothing')).rejects.toMatchObject({ code: 'NO_SUCH_CALL' });
  });

  it('fail every pending call, retryable, when the other side goes away, and later ones at once', async () => {
    const [parentEnd, childEnd] = channelPair();
    const parent = new CallChannel(parentEnd);
    const child = new CallChannel(childEnd);
    parent.handle('never', () => new Promise(() => undefined));
    const pending = child.call('never');
    await new Promise((resolve) => setImmediate(resolve));
    childEnd.disconnect();
    await expect(pending).rejects.toMatchObject({ code: 'CHANNEL_CLOSED', retryable: true });
    await expect(child.call('never')).rejects.toMatchObject({ code: 'CHANNEL_CLOSED' });
  });
});

describe("the account's one token and rate limiter across processes", () => {
  it("gives the child the parent's token, and each renewed one as the parent announces it", async () => {
    const [parentEnd, childEnd] = channelPair();
    const listeners = new Set<(token: string) => void>();
    let token = 'first';
    const tokens = {
      getToken: async () => token,
      tokenRejected: async () => {
        token = 'renewed-on-refusal';
        return token;
      },
      onChange: (listener: (t: string) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    offerAccount(new CallChannel(parentEnd), tokens, undefined);
    const child = parentTokens(new CallChannel(childEnd));
    expect(await child.getToken()).toBe('first');
    // Renewed in the parent (ahead of expiry): the child holds the new one without asking.
    token = 'renewed';
    for (const listener of listeners) listener(token);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Asking the parent now would give this instead: the child answers from what it was told.
    token = 'asked';
    expect(await child.getToken()).toBe('renewed');
    // A refusal renews in the parent, and the child takes the renewed token.
    expect(await child.tokenRejected?.('renewed')).toBe('renewed-on-refusal');
    expect(await child.getToken()).toBe('renewed-on-refusal');
    childEnd.disconnect();
  });

  it('takes shared slots from the parent, keeps the others local, and takes back what a dead child held', async () => {
    const [parentEnd, childEnd] = channelPair();
    const shared = new RateLimiter();
    const tokens = {
      getToken: async () => 't',
      tokenRejected: async () => 't',
      onChange: () => () => undefined,
    };
    const lent = offerAccount(new CallChannel(parentEnd), tokens, shared);
    const childLimiter = new ParentPacedLimiter(new CallChannel(childEnd));
    expect(SHARED_CATEGORIES).toContain('quote');
    // A quote call in flight in the child is in flight in the parent's limiter (the poller's too).
    const release = await childLimiter.acquire('quote', 'POST /marketfeed/quote');
    expect(shared.stats().quote.inFlight).toBe(1);
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(shared.stats().quote.inFlight).toBe(0);
    // An order is the child's alone: paced by its own windows, never a crossing.
    const order = await childLimiter.acquire('order', 'POST /orders');
    expect(childLimiter.stats().order.inFlight).toBe(1);
    expect(shared.stats().order.inFlight).toBe(0);
    order();
    // The child dies holding a shared slot: it is given back when the parent learns of the death.
    await childLimiter.acquire('quote', 'POST /marketfeed/quote');
    expect(shared.stats().quote.inFlight).toBe(1);
    childEnd.disconnect();
    lent.releaseAll();
    expect(shared.stats().quote.inFlight).toBe(0);
  });
});
