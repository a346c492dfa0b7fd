/**
 * Issue 37, an order answered within 1 s under a flood: the idempotency read of the audit trail was
 * one of the store statements on every order's answer path. A correlation id the trail holds no row
 * of is now answered from memory; an id with rows is still read from the store, so a retry, another
 * key's claim and a restart (rows written by an earlier process) are answered as before.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { recordingReads, tempDir } from '@feedpipe/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog, type AuditRow } from '../src/orders/audit-log.js';
import { CorrelationIndex } from '../src/orders/correlation-index.js';

let store: Store;
let reads: string[];

beforeEach(async () => {
  store = createStore({ dataDir: tempDir('gateway-correlation-index') });
  await runMigrations(store.internal);
  reads = [];
});
afterEach(async () => {
  await store?.close();
});

/** An audit log over the store whose reads of the audit table are recorded in `reads`. */
function auditLog(maxIds?: number): AuditLog {
  const lane = recordingReads(store, (sql) => sql.includes(SERVICE_TABLES.orderAudit.name), reads).internal;
  return new AuditLog(lane, Date.now, new CorrelationIndex(lane, maxIds));
}

function placed(keyId: string, correlationId: string, phase: AuditRow['phase']): AuditRow {
  return {
    requestId: `${keyId}-${correlationId}-${phase}`,
    phase,
    keyId,
    action: 'orders.place',
    correlationId,
    request: { quantity: 1 },
    outcome: phase === 'request' ? '' : 'accepted',
    ...(phase === 'outcome'
      ? { orderId: `order-${correlationId}`, response: { orderId: `order-${correlationId}` } }
      : {}),
  };
}

describe('correlation index', () => {
  it('answers new ids from memory after one read of the table', async () => {
    const audit = auditLog();
    expect(await audit.history('new-1', 'key-a')).toEqual({ last: undefined, otherKeys: false });
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain('DISTINCT correlation_id');
    expect(await audit.history('new-2', 'key-a')).toEqual({ last: undefined, otherKeys: false });
    expect(await audit.keysOf('new-3')).toEqual([]);
    expect(reads).toHaveLength(1);
  });

  it('reads the store for an id this process wrote: the retry replays, another key sees the claim', async () => {
    const audit = auditLog();
    await audit.history('cid-a', 'key-a');
    await audit.write(placed('key-a', 'cid-a', 'request'));
    await audit.write(placed('key-a', 'cid-a', 'outcome'));
    const before = reads.length;
    const own = await audit.history('cid-a', 'key-a');
    expect(own.last).toMatchObject({ outcome: 'accepted', orderId: 'order-cid-a' });
    expect(own.otherKeys).toBe(false);
    expect((await audit.history('cid-a', 'key-b')).otherKeys).toBe(true);
    expect(await audit.keysOf('cid-a')).toEqual(['key-a']);
    expect(reads.length).toBe(before + 3);
  });

  it('knows the ids an earlier process wrote (a restart reads them with the table)', async () => {
    const earlier = auditLog();
    await earlier.write(placed('key-a', 'cid-old', 'request'));
    const restarted = auditLog();
    expect((await restarted.history('cid-old', 'key-a')).last).toMatchObject({ phase: 'request' });
    expect((await restarted.history('cid-old', 'key-b')).otherKeys).toBe(true);
  });

  it('keeps an id written while its table was being read', async () => {
    const audit = auditLog();
    const first = audit.history('cid-other', 'key-a');
    await audit.write(placed('key-a', 'cid-during', 'request'));
    await first;
    expect((await audit.history('cid-during', 'key-b')).otherKeys).toBe(true);
  });

  it('past its limit goes to the store for every id, and still answers right', async () => {
    const audit = auditLog(2);
    await audit.write(placed('key-a', 'cid-1', 'request'));
    await audit.write(placed('key-a', 'cid-2', 'request'));
    await audit.write(placed('key-a', 'cid-3', 'request'));
    const before = reads.length;
    expect(await audit.history('cid-new', 'key-a')).toEqual({ last: undefined, otherKeys: false });
    expect((await audit.history('cid-3', 'key-b')).otherKeys).toBe(true);
    expect(reads.length).toBe(before + 2);
    expect(reads.every((sql) => !sql.includes('DISTINCT correlation_id'))).toBe(true);
  });
});
