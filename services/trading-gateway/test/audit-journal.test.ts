/**
 * The audit journal and its drain over a real embedded store: synced rows come back after the
 * process is gone (a torn last line does not), the bounds refuse new orders but never an outcome
 * of an order sent, a full disk is named, and recovered rows land in market.order_audit once even
 * when some of them were stored before the crash.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditDrain } from '../src/orders/audit-drain.js';
import { AuditJournal, type AuditJournalOptions, type JournaledRow } from '../src/orders/audit-journal.js';
import { type AuditRow, storedAuditRows } from '../src/orders/audit-log.js';

const AUDIT = SERVICE_TABLES.orderAudit.name;
let store: Store;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('audit-journal-chdb') });
  await runMigrations(store.internal);
});
afterAll(async () => store?.close());

const options = (over: Partial<AuditJournalOptions> = {}): AuditJournalOptions => ({
  dir: tempDir('audit-journal'),
  maxRows: 1_000,
  maxBytes: 1 << 24,
  fileBytes: 1 << 20,
  ...over,
});

/** A placement's two rows (request, then accepted outcome) under a correlation id of its own. */
function placement(cid: string, orderId: string): AuditRow[] {
  const base = {
    requestId: `${cid}-r`,
    keyId: 'k1',
    action: 'orders.place',
    correlationId: cid,
    securityId: '11536',
    quantity: 1,
    price: 3000,
    request: { quantity: 1, price: 3000 },
  };
  return [
    { ...base, phase: 'request', outcome: '' },
    { ...base, phase: 'outcome', outcome: 'accepted', orderId, httpStatus: 200, response: { orderId } },
  ];
}

const rowsOf = (items: readonly JournaledRow[]) => items.map((i) => i.row);

async function storedCounts(cids: readonly string[]): Promise<Map<string, number>> {
  const rows = await store.internal.rows<{ id: string; n: string | number }>(
    `SELECT concat(request_id, '/', toString(phase), '/', order_id) AS id, count() AS n FROM ${AUDIT}
     WHERE correlation_id IN {cids:Array(String)} GROUP BY id`,
    { cids: [...cids] },
  );
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

describe('audit journal', () => {
  it('gives back every synced row after the process is gone, in order, and stops at a torn line', async () => {
    const o = options();
    const journal = await AuditJournal.open(o);
    const rows = [...placement('c1', 'O1'), ...placement('c2', 'O2')];
    await Promise.all(rows.map((row, i) => journal.append({ atMs: 1_000 + i, row }, 'always')));
    // The process dies here (no close); a write it had begun is cut mid-line.
    const [file] = readdirSync(o.dir);
    appendFileSync(join(o.dir, file ?? ''), '0badc0de {"atMs":9,"row":');

    const reopened = await AuditJournal.open(o);
    expect(rowsOf(reopened.recoveredRows())).toEqual(rows);
    expect(reopened.pendingOf('c2').map((i) => i.row.phase)).toEqual(['request', 'outcome']);
    expect(reopened.stats()).toMatchObject({ rows: 4, recovered: 4 });
    // New rows go to a file of their own: the torn one is never appended to.
    await reopened.append({ atMs: 2_000, row: placement('c3', 'O3')[0] as AuditRow }, 'bounded');
    expect(readdirSync(o.dir).sort()).toHaveLength(2);
    await reopened.close();
  });

  it('refuses a new order past its bounds but takes the outcome of an order already sent', async () => {
    const journal = await AuditJournal.open(options({ maxRows: 2 }));
    const [request, outcome] = placement('c4', 'O4') as [AuditRow, AuditRow];
    await journal.append({ atMs: 1, row: request }, 'bounded');
    await journal.append({ atMs: 2, row: { ...request, requestId: 'other' } }, 'bounded');
    await expect(
      journal.append({ atMs: 3, row: { ...request, requestId: 'third' } }, 'bounded'),
    ).rejects.toMatchObject({
      code: 'AUDIT_BACKLOG_FULL',
      status: 503,
    });
    await journal.append({ atMs: 4, row: outcome }, 'always');
    expect(journal.stats()).toMatchObject({ rows: 3, refusedFull: 1 });
    journal.settle(2);
    await journal.append({ atMs: 5, row: { ...request, requestId: 'fourth' } }, 'bounded');
    expect(journal.stats().rows).toBe(2);
    await journal.close();
  });

  it('deletes a file once its rows are drained and it is no longer appended to', async () => {
    const o = options({ fileBytes: 1_024 });
    const journal = await AuditJournal.open(o);
    for (let i = 0; i < 12; i++) {
      for (const row of placement(`f${i}`, `F${i}`)) await journal.append({ atMs: i, row }, 'always');
    }
    const written = readdirSync(o.dir).length;
    expect(written).toBeGreaterThan(2);
    journal.settle(24);
    await waitFor(() => readdirSync(o.dir).length === 1, 5_000, 'drained files to be deleted');
    expect(journal.stats()).toMatchObject({ rows: 0, bytes: 0, files: 1, oldestAtMs: undefined });
    await journal.close();
  });

  it('names a full disk and loses none of the rows it had synced', async () => {
    const dir = tempDir('audit-journal-full');
    // A real full disk: a 1 MiB tmpfs (the tests run as root, as the sink's disk-guard tests do).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    try {
      const o = options({ dir, fileBytes: 1 << 30, maxBytes: 1 << 30 });
      const journal = await AuditJournal.open(o);
      const big = 'x'.repeat(8_000);
      let synced = 0;
      let failure: unknown;
      for (let i = 0; i < 1_000 && failure === undefined; i++) {
        const row = { ...(placement(`d${i}`, '')[0] as AuditRow), request: { big } };
        await journal.append({ atMs: i, row }, 'bounded').then(
          () => {
            synced += 1;
          },
          (error: unknown) => {
            failure = error;
          },
        );
      }
      expect(failure).toMatchObject({ code: 'AUDIT_JOURNAL_FAILED', status: 503 });
      expect((failure as Error).message).toContain(`its disk is full (ENOSPC in ${dir})`);
      expect(synced).toBeGreaterThan(50);
      expect(journal.stats()).toMatchObject({ rows: synced, failedWrites: 1 });
      await journal.close();
      // What was synced is still there for the next start.
      const reopened = await AuditJournal.open(o);
      expect(reopened.recoveredRows()).toHaveLength(synced);
      await reopened.close();
    } finally {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit drain', () => {
  it('stores recovered rows once, those the crashed process had stored included, and frees the journal', async () => {
    const o = options();
    const cids = Array.from({ length: 6 }, () => uniqueName('cid'));
    const rows = cids.flatMap((cid, i) => placement(cid, `D${i}`));
    const crashed = await AuditJournal.open(o);
    const items = rows.map((row, i) => ({ atMs: Date.parse('2026-11-27T10:00:00Z') + i, row }));
    await Promise.all(items.map((item) => crashed.append(item, 'always')));
    // The crashed process's insert of the first five rows landed; it died before settling them.
    await storedAuditRows(store.internal).insert(items.slice(0, 5));

    const journal = await AuditJournal.open(o);
    const drain = new AuditDrain(journal, storedAuditRows(store.internal), { batchRows: 4 });
    await journal.whenDrained(30_000);
    expect(journal.stats().rows).toBe(0);
    expect(drain.stats()).toMatchObject({ drainedRows: 12, skippedStored: 5, failures: 0 });
    const counts = await storedCounts(cids);
    expect(counts.size).toBe(12);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    await drain.close();
    await journal.close();
  });

  it('keeps the rows while the store refuses them and stores them once it answers again', async () => {
    const journal = await AuditJournal.open(options());
    const cid = uniqueName('cid');
    let refusals = 3;
    const target = storedAuditRows(store.internal);
    // The store as the port allows it to behave when its server is away: the insert fails.
    const drain = new AuditDrain(
      journal,
      {
        insert: (rows) =>
          refusals-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED')) : target.insert(rows),
        storedIdentities: (rows) => target.storedIdentities(rows),
      },
      { batchRows: 10, backoff: { initialMs: 10, maxMs: 20 } },
    );
    for (const row of placement(cid, 'R1')) await journal.append({ atMs: Date.now(), row }, 'always');
    expect(journal.pendingOf(cid)).toHaveLength(2);
    await journal.whenDrained(30_000);
    expect(drain.stats()).toMatchObject({ failures: 3, drainedRows: 2 });
    expect([...(await storedCounts([cid])).values()]).toEqual([1, 1]);
    await drain.close();
    await journal.close();
  });
});

// A journal file written by hand with a line whose CRC does not match: read up to it, no further.
it('stops reading a journal file at a line whose checksum does not match', async () => {
  const o = options();
  const first = await AuditJournal.open(o);
  const [row] = placement('crc', 'C1') as [AuditRow];
  await first.append({ atMs: 1, row }, 'always');
  await first.close();
  const [name] = readdirSync(o.dir);
  const path = join(o.dir, name ?? '');
  writeFileSync(path, `00000000 ${JSON.stringify({ atMs: 2, row })}\n`, { flag: 'a' });
  const reopened = await AuditJournal.open(o);
  expect(reopened.recoveredRows()).toHaveLength(1);
  await reopened.close();
});
