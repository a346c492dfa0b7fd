/**
 * The control messages read so far, kept (a bounded number) so a step of the handover can wait for
 * the answer to something it sent without a race: it notes the position before sending and waits
 * for the first matching message from there, whether it arrived before the wait began or after.
 */
import type { ControlMessage } from './control-messages.js';

const KEPT = 1_000;

interface Waiter {
  from: number;
  match: (message: ControlMessage) => boolean;
  resolve: (message: ControlMessage | undefined) => void;
  timer: NodeJS.Timeout;
}

export class ControlInbox {
  readonly #kept: ControlMessage[] = [];
  /** Position of `#kept[0]` among every message delivered. */
  #first = 0;
  readonly #waiters = new Set<Waiter>();

  /** The position of the next message to arrive. */
  mark(): number {
    return this.#first + this.#kept.length;
  }

  deliver(message: ControlMessage): void {
    this.#kept.push(message);
    if (this.#kept.length > KEPT) {
      this.#kept.shift();
      this.#first += 1;
    }
    const at = this.mark() - 1;
    for (const waiter of [...this.#waiters]) {
      if (at >= waiter.from && waiter.match(message)) this.#settle(waiter, message);
    }
  }

  /** The first message from position `from` on that matches; undefined after `timeoutMs`. */
  next(
    match: (message: ControlMessage) => boolean,
    timeoutMs: number,
    from: number,
  ): Promise<ControlMessage | undefined> {
    for (let at = Math.max(from, this.#first); at < this.mark(); at++) {
      const message = this.#kept[at - this.#first] as ControlMessage;
      if (match(message)) return Promise.resolve(message);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        from,
        match,
        resolve,
        timer: setTimeout(() => this.#settle(waiter, undefined), timeoutMs),
      };
      this.#waiters.add(waiter);
    });
  }

  #settle(waiter: Waiter, message: ControlMessage | undefined): void {
    if (!this.#waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    waiter.resolve(message);
  }
}
