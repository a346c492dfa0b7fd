/**
 * A key table in memory behind the store's port, counting every statement: what the auth tests
 * need to show that checking keys makes no store query per request. Only the calls ApiKeyStore
 * makes are answered (rows of the key table, insertRows of a key); anything else fails the test.
 */
import type { StoreLane } from '@feedpipe/store';

export interface CountingLane {
  lane: StoreLane;
  /** Every statement run, in order (SQL text or `INSERT <table>`). */
  readonly statements: string[];
  /** Reads of the whole table (the key table's refreshes). */
  tableReads(): number;
  /** While set, every call rejects as an unreachable store would. */
  failing: boolean;
}

interface Row {
  key_id: string;
  name: string;
  scopes: string[];
  salt: string;
  hash: string;
  created_at: string;
  revoked: number;
}

export function countingLane(): CountingLane {
  const table = new Map<string, Row>();
  const statements: string[] = [];
  const state = { failing: false };
  const lane = {
    name: 'internal',
    async rows<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
      statements.push(sql);
      if (state.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:8123');
      const keyId = params?.keyId;
      const all = [...table.values()];
      return (typeof keyId === 'string' ? all.filter((r) => r.key_id === keyId) : all) as T[];
    },
    async insertRows(name: string, columns: readonly string[], rows: readonly (readonly unknown[])[]) {
      statements.push(`INSERT ${name}`);
      if (state.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:8123');
      for (const values of rows) {
        const row = Object.fromEntries(columns.map((c, i) => [c, values[i]])) as unknown as Row;
        table.set(row.key_id, row);
      }
    },
  } as unknown as StoreLane;
  return {
    lane,
    statements,
    tableReads: () => statements.filter((s) => s.includes('LIMIT {limit:UInt32}')).length,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
  };
}
