/**
 * Calls between `npm start` and one of its child processes over the IPC channel Node opens for a
 * forked child (structured clone, `serialization: 'advanced'`, so bigint, Date and byte arrays
 * cross as they are). Either side can offer named handlers and call the other's; each call is
 * answered once, with its value or with the error it failed with, rebuilt on the calling side as
 * the type its callers check for (a StoreError's code and retryable, a BrokerApiError's fields).
 *
 * Bounded: at most MAX_PENDING calls wait for answers at once (a further call fails at once with
 * CALLS_FULL), and every pending call fails with CHANNEL_CLOSED when the channel closes (the other
 * side died or disconnected), so nothing waits forever on a dead peer.
 */
import type { Serializable } from 'node:child_process';
import { BrokerApiError, type BrokerApiErrorCode } from '@feedpipe/broker-api';
import { StoreError, type StoreErrorCode } from '@feedpipe/store';

const MAX_PENDING = 10_000;

/** The ends of an IPC channel: a forked child's `process`, or the parent's ChildProcess. */
export interface MessageEnd {
  send?: ((message: Serializable, callback: (error: Error | null) => void) => boolean) | undefined;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  connected?: boolean;
}

export type CallErrorCode = 'CHANNEL_CLOSED' | 'CALLS_FULL' | 'NO_SUCH_CALL';

/** A call that failed on the channel itself, not in the handler. */
export class CallError extends Error {
  readonly code: CallErrorCode;
  readonly retryable: boolean;
  constructor(code: CallErrorCode, message: string) {
    super(message);
    this.name = 'CallError';
    this.code = code;
    this.retryable = code !== 'NO_SUCH_CALL';
  }
}

/** An error as it crosses: its name, message and own scalar fields (code, retryable, ...). */
interface ErrorOnWire {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean>;
}

type CallMessage =
  | { kind: 'call'; id: number; name: string; args: unknown[] }
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'fail'; id: number; error: ErrorOnWire };

function isCallMessage(value: unknown): value is CallMessage {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'call' || kind === 'done' || kind === 'fail';
}

function errorToWire(error: unknown): ErrorOnWire {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

function errorFromWire(wire: ErrorOnWire): Error {
  const { fields } = wire;
  if (wire.name === 'StoreError' && typeof fields.code === 'string') {
    return new StoreError(fields.code as StoreErrorCode, wire.message, {
      retryable: fields.retryable === true,
    });
  }
  if (wire.name === 'BrokerApiError' && typeof fields.code === 'string') {
    return new BrokerApiError({ ...fields, code: fields.code as BrokerApiErrorCode, message: wire.message });
  }
  if (wire.name === 'CallError' && typeof fields.code === 'string') {
    return new CallError(fields.code as CallErrorCode, wire.message);
  }
  const error = new Error(wire.message);
  error.name = wire.name;
  return error;
}

type Handler = (...args: never[]) => unknown;

export class CallChannel {
  readonly #end: MessageEnd;
  readonly #handlers = new Map<string, Handler>();
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;
  #closed = false;

  constructor(end: MessageEnd) {
    this.#end = end;
    end.on('message', (message) => {
      if (isCallMessage(message)) this.#receive(message);
    });
    end.on('disconnect', () => this.close());
  }

  /** Offers `handler` to the other side as `name`; what it returns (or throws) is the answer. */
  handle(name: string, handler: Handler): void {
    this.#handlers.set(name, handler);
  }

  call<T>(name: string, ...args: unknown[]): Promise<T> {
    if (this.#closed || this.#end.connected === false) {
      return Promise.reject(new CallError('CHANNEL_CLOSED', `${name}: the other process is gone`));
    }
    if (this.#pending.size >= MAX_PENDING) {
      return Promise.reject(new CallError('CALLS_FULL', `${name}: ${MAX_PENDING} calls already wait`));
    }
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#send({ kind: 'call', id, name, args });
    });
  }

  /** Fails every call still waiting; later calls fail at once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const { reject } of this.#pending.values()) {
      reject(new CallError('CHANNEL_CLOSED', 'the other process went away before answering'));
    }
    this.#pending.clear();
  }

  #send(message: CallMessage): void {
    // A send that fails (the channel closed under it) fails its call; an answer that cannot be
    // sent has no one left to read it.
    const failed = (error: unknown) => {
      if (message.kind === 'call') this.#settle({ kind: 'fail', id: message.id, error: errorToWire(error) });
    };
    try {
      this.#end.send?.(message, (error) => {
        if (error) failed(error);
      });
    } catch (error) {
      failed(error);
    }
  }

  #receive(message: CallMessage): void {
    if (message.kind === 'call') {
      void this.#answer(message.id, message.name, message.args);
      return;
    }
    this.#settle(message);
  }

  #settle(message: Exclude<CallMessage, { kind: 'call' }>): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.kind === 'done') pending.resolve(message.value);
    else pending.reject(errorFromWire(message.error));
  }

  async #answer(id: number, name: string, args: unknown[]): Promise<void> {
    const handler = this.#handlers.get(name);
    try {
      if (!handler) throw new CallError('NO_SUCH_CALL', `no call named ${name}`);
      const value = await (handler as (...a: unknown[]) => unknown)(...args);
      if (!this.#closed) this.#send({ kind: 'done', id, value });
    } catch (error) {
      if (!this.#closed) this.#send({ kind: 'fail', id, error: errorToWire(error) });
    }
  }
}
