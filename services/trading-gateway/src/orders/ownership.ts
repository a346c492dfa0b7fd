/**
 * Which gateway key owns an order: the key whose placement the service accepted. Every key of the
 * gateway trades on the same account at the service, so without this any trade key could read,
 * modify or cancel another key's orders and read its audit trail.
 *
 * Ownership is not a table of its own: the audit trail already persists it. Each placement's
 * `outcome` row (market.order_audit, migration 004) carries the placing key (`key_id`) and the
 * order id the service gave (`order_id`); the owner is the key of the oldest accepted (or
 * replayed, after an unknown outcome was resolved) placement row of that order id. A new process
 * therefore knows the owners of every order placed before it started. Owners never change, so
 * they are cached (bounded); a miss is asked of the store again, never cached, because the
 * outcome row of a placement in flight may not be written yet.
 *
 * A key that holds both `trade` and `admin` is a supervisor: it sees and acts on every order.
 * Orders nobody placed through the gateway (the service's console, a triggered forever or
 * conditional order's child) have no owner: only a supervisor sees them.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';
import type { AuditRow } from './audit-log.js';

/** Who is asking: the key, and whether it may act on every key's orders. */
export interface Caller {
  keyId: string;
  supervisor: boolean;
}

/** The audit actions that create an order (their outcome rows name the owner). */
export const PLACE_ACTIONS = [
  'orders.place',
  'superOrders.place',
  'foreverOrders.place',
  'conditionalOrders.place',
  'usOrders.place',
  'orders.slice',
] as const;

const AUDIT_TABLE = SERVICE_TABLES.orderAudit.name;
/** The audit rows that name an order's owner: accepted placements (needs the `actions` parameter). */
const PLACED = `phase = 'outcome' AND outcome IN ('accepted', 'replayed') AND key_id != ''
             AND action IN {actions:Array(String)}`;
/** Owners remembered; past it the oldest half is forgotten (they are read again when needed). */
const MAX_CACHED_OWNERS = 100_000;
/** Ids asked of the store in one statement (lists of the day's book stay far below). */
const MAX_IDS_PER_QUERY = 5_000;

export class OrderOwners {
  readonly #store: StoreLane;
  readonly #owners = new Map<string, string>();

  constructor(store: StoreLane) {
    this.#store = store;
  }

  /** Remembers the owner of an order just accepted (before its audit row can be read back). */
  note(orderId: string, keyId: string): void {
    if (orderId === '' || keyId === '' || this.#owners.has(orderId)) return;
    if (this.#owners.size >= MAX_CACHED_OWNERS) {
      let drop = MAX_CACHED_OWNERS / 2;
      for (const id of this.#owners.keys()) {
        if (drop-- <= 0) break;
        this.#owners.delete(id);
      }
    }
    this.#owners.set(orderId, keyId);
  }

  /**
   * Remembers the owners the audit journal's rows name (accepted placements), for rows an earlier
   * process journaled that the store may not hold yet: ownersOf asks only the store.
   */
  notePlacements(rows: readonly AuditRow[]): void {
    const placing: ReadonlySet<string> = new Set(PLACE_ACTIONS);
    for (const row of rows) {
      if (
        row.phase === 'outcome' &&
        (row.outcome === 'accepted' || row.outcome === 'replayed') &&
        placing.has(row.action)
      )
        this.note(row.orderId ?? '', row.keyId);
    }
  }

  /** The owner if it is known in memory (undefined: not known here, ask ownersOf). */
  cachedOwner(orderId: string): string | undefined {
    return this.#owners.get(orderId);
  }

  /** The owners of these order ids that have one (ids without an owner are absent). */
  async ownersOf(orderIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const missing: string[] = [];
    for (const id of new Set(orderIds)) {
      const owner = this.#owners.get(id);
      if (owner !== undefined) found.set(id, owner);
      else if (id !== '') missing.push(id);
    }
    for (let i = 0; i < missing.length; i += MAX_IDS_PER_QUERY) {
      const ids = missing.slice(i, i + MAX_IDS_PER_QUERY);
      let rows: { order_id: string; owner: string }[];
      try {
        rows = await this.#store.rows(
          `SELECT order_id, argMin(key_id, at) AS owner FROM ${AUDIT_TABLE}
           WHERE order_id IN {ids:Array(String)} AND ${PLACED}
           GROUP BY order_id`,
          { ids, actions: [...PLACE_ACTIONS] },
        );
      } catch (error) {
        throw new TradingGatewayError('AUDIT_UNAVAILABLE', 'order owners cannot be read right now', {
          cause: error,
          retryable: true,
        });
      }
      for (const r of rows) {
        found.set(r.order_id, r.owner);
        this.note(r.order_id, r.owner);
      }
    }
    return found;
  }

  /**
   * A subquery of the order ids `keyId` owns, for stored records filtered in ClickHouse (paged
   * reads, where filtering a page after reading it would shorten pages).
   */
  ownedOrderIds(keyId: string): { sql: string; params: Record<string, string | string[]> } {
    return {
      sql: `SELECT order_id FROM ${AUDIT_TABLE} WHERE ${PLACED}
             GROUP BY order_id HAVING argMin(key_id, at) = {ownerKey:String}`,
      params: { actions: [...PLACE_ACTIONS], ownerKey: keyId },
    };
  }

  /** Whether `caller` may see and act on this order. */
  async mayAct(caller: Caller, orderId: string): Promise<boolean> {
    if (caller.supervisor) return true;
    return (await this.ownersOf([orderId])).get(orderId) === caller.keyId;
  }

  /**
   * Refuses with 404 an order of another key (or of none): the same answer as an order that does
   * not exist, so a key cannot even learn which order ids are in use.
   */
  async assertMayAct(caller: Caller, orderId: string): Promise<void> {
    if (!(await this.mayAct(caller, orderId))) throw notYours(orderId);
  }

  /** The records of a list the caller may see (by the record's order id field). */
  async visible<T>(caller: Caller, records: readonly T[], idOf: (record: T) => unknown): Promise<T[]> {
    if (caller.supervisor) return [...records];
    const ids = records.map((r) => String(idOf(r) ?? ''));
    const owners = await this.ownersOf(ids);
    return records.filter((_, i) => owners.get(ids[i] ?? '') === caller.keyId);
  }
}

export function notYours(orderId: string): TradingGatewayError {
  return new TradingGatewayError('NOT_FOUND', `no order ${orderId} of this key`);
}
