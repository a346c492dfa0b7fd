/**
 * The retention policy from the environment: STORE_TTL_<TABLE>_DAYS per table (retention-rules.ts),
 * each an integer of days from 0 (forever) to MAX_RETENTION_DAYS, unset or blank for the table's
 * default. Read once, at start, by the process that applies it (the sink, `npm start`,
 * `feedpipe-store retention`); every bad value is named in one STORE_CONFIG_INVALID.
 */
import { StoreError } from '../errors.js';
import { MAX_RETENTION_DAYS, RETENTION_RULES, type RetentionPolicy } from './retention-rules.js';

export type RetentionEnv = Readonly<Record<string, string | undefined>>;

/** Each variable with its default, for docs and checks (docs/configuration.md, "Retention"). */
export const RETENTION_ENV: ReadonlyArray<{ name: string; table: string; defaultDays: number }> =
  Object.freeze(RETENTION_RULES.map((r) => ({ name: r.env, table: r.table, defaultDays: r.defaultDays })));

const DAYS = /^\d{1,6}$/;

export function retentionFromEnv(env: RetentionEnv): RetentionPolicy {
  const problems: string[] = [];
  const policy: Record<string, number> = {};
  for (const rule of RETENTION_RULES) {
    const raw = env[rule.env]?.trim() ?? '';
    if (raw === '') {
      policy[rule.table] = rule.defaultDays;
      continue;
    }
    const days = DAYS.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(days) || days > MAX_RETENTION_DAYS) {
      problems.push(`${rule.env} must be a whole number of days from 0 (forever) to ${MAX_RETENTION_DAYS}`);
      continue;
    }
    policy[rule.table] = days;
  }
  if (problems.length > 0) {
    throw new StoreError('STORE_CONFIG_INVALID', `invalid retention:\n  - ${problems.join('\n  - ')}`);
  }
  return Object.freeze(policy);
}
