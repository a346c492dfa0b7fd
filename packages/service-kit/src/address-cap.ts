/**
 * Connections at once per client address, checked the moment a socket is accepted, before Node's
 * HTTP server allocates a parser, timers or anything else for it (http-server-limits.ts runs it
 * ahead of the HTTP server's own 'connection' listener). One client holding thousands of idle
 * sockets is then refused at the cost of an accept and a reset, while the process's budget
 * (ConnectionBudget) stays for everyone else: without it a single address could fill the budget
 * and push other clients' idle keep-alive connections out.
 *
 * Addresses are counted as the socket reports them (`remoteAddress`): an IPv4 client and its
 * IPv4-mapped IPv6 form (`::ffff:a.b.c.d`) come through a server in one form only, so they are
 * never counted apart. A client owning a whole IPv6 prefix is a client per address here; the
 * process budget still bounds it.
 */
import type { Socket } from 'node:net';

export class AddressCap {
  /** Connections one address may hold at once. */
  readonly perAddress: number;
  readonly #open = new Map<string, number>();
  #refused = 0;

  constructor(perAddress: number) {
    if (!Number.isInteger(perAddress) || perAddress < 1) {
      throw new RangeError('perAddress must be an integer >= 1');
    }
    this.perAddress = perAddress;
  }

  /** Connections refused because their address already held `perAddress`. */
  get refused(): number {
    return this.#refused;
  }

  /** Addresses holding at least one connection now. */
  get addresses(): number {
    return this.#open.size;
  }

  /** Connections `address` holds now. */
  openOf(address: string): number {
    return this.#open.get(address) ?? 0;
  }

  /**
   * Counts `socket` against its address until it closes; false (counted as refused) when the
   * address is at the cap. A socket already gone (no remote address) is let through: the HTTP
   * server sees it close at once and holds nothing for it.
   */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress;
    if (address === undefined) return true;
    const open = this.#open.get(address) ?? 0;
    if (open >= this.perAddress) {
      this.#refused += 1;
      return false;
    }
    this.#open.set(address, open + 1);
    socket.once('close', () => this.#release(address));
    return true;
  }

  #release(address: string): void {
    const open = (this.#open.get(address) ?? 1) - 1;
    if (open <= 0) this.#open.delete(address);
    else this.#open.set(address, open);
  }
}
