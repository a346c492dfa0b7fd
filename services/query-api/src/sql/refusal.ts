/** What the guard hands back, and how it refuses: shared by sql-guard.ts and metadata-answers.ts. */
import { QueryApiError } from '../errors.js';
import type { QueryParams } from '../query/query-runner.js';

export type GuardedKind = 'select' | 'show-tables' | 'describe' | 'catalog' | 'explain';

export interface GuardedSql {
  kind: GuardedKind;
  /** The statement to run (without SETTINGS or FORMAT, which the runner appends). */
  sql: string;
  /** Its parameters: the caller's for a SELECT, the API's own for SHOW/DESCRIBE. */
  params: QueryParams;
  /** The output format the text named in a trailing FORMAT clause (`output: 'clause'` only). */
  format?: string;
}

/**
 * Why SQL was refused, for protocols that answer with their own codes (the ClickHouse endpoint):
 * `syntax` = not one statement the parser reads, `size` = over the length limit, `readonly` = a
 * statement other than a read, `access` = a table, function or construct outside the allow-lists.
 */
export type RefusalReason = 'syntax' | 'size' | 'readonly' | 'access';

/** SQL_REFUSED with its reason; still a QueryApiError (400) to every other caller. */
export class SqlRefusal extends QueryApiError {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, message: string, cause?: unknown) {
    super('SQL_REFUSED', message, { field: 'sql', cause });
    this.reason = reason;
  }
}

export function refuse(message: string, cause?: unknown, reason: RefusalReason = 'access'): never {
  throw new SqlRefusal(reason, message, cause);
}
