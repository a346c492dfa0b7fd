/**
 * Which functions caller SQL may call: an allow-list built from the engine's own catalogue
 * (system.functions), by category. Pure computation (arithmetic, dates, strings, arrays, JSON,
 * aggregates, ...) is in; whatever reaches outside the query's own rows is out: dictionaries and
 * joinGet (they read tables named in a string), file(), the server's settings, users, macros and
 * host, introspection, sleep, the AI and model functions. A function the catalogue does not know,
 * or files under a category not listed here, is refused, so a new engine version opens nothing
 * by itself.
 */
import type { QueryRunner } from '../query/query-runner.js';

/** Categories of system.functions whose members compute on their arguments only. */
const PURE_CATEGORIES = new Set([
  'Aggregate Functions',
  'Arithmetic',
  'Arrays',
  'Bit',
  'Bitmap',
  'Comparison',
  'Conditional',
  'Dates and Times',
  'Distance',
  'Encoding',
  'Encryption',
  'Financial',
  'Geo',
  'Geo Polygon',
  'Hash',
  'IP Address',
  'JSON',
  'Logical',
  'Map',
  'Mathematical',
  'Null',
  'NumericIndexedVector',
  'QBit',
  'Random Number',
  'Rounding',
  'String',
  'String Replacement',
  'String Search',
  'String Splitting',
  'Time Series',
  'Time Window',
  'Tuple',
  'Type Conversion',
  'URL',
  'UUID',
]);

/**
 * Members of the mixed categories `Other` and `Internal` that are pure as well. Everything else
 * there is refused: file, joinGet, hasColumnInTable, getSetting, getServerSetting, getMacro,
 * currentUser, hostName, version, uptime, queryID, sleep, catboostEvaluate, generateSerialID, ...
 */
const PURE_OTHERS = new Set([
  '_CAST',
  'caseWithExpression',
  'bar',
  'byteSize',
  'countDigits',
  'defaultValueOfArgumentType',
  'defaultValueOfTypeName',
  'dumpColumnStructure',
  'finalizeAggregation',
  'flipCoordinates',
  'formatReadableDecimalSize',
  'formatReadableQuantity',
  'formatReadableSize',
  'formatReadableTimeDelta',
  'getSizeOfEnumType',
  'getSubcolumn',
  'identity',
  'ignore',
  'indexHint',
  'initializeAggregation',
  'isConstant',
  'isDecimalOverflow',
  'lowCardinalityIndices',
  'lowCardinalityKeys',
  'MACNumToString',
  'MACStringToNum',
  'MACStringToOUI',
  'materialize',
  'minSampleSizeContinuous',
  'minSampleSizeConversion',
  'neighbor',
  'parseReadableSize',
  'parseReadableSizeOrNull',
  'parseReadableSizeOrZero',
  'parseTimeDelta',
  'runningAccumulate',
  'runningDifference',
  'runningDifferenceStartingWithFirstValue',
  'throwIf',
  'toColumnTypeName',
  'toTypeName',
  'transform',
  'variantElement',
  'variantType',
  'visibleWidth',
]);

/** Names the parser produces for syntax (`x -> y`, EXISTS, GROUPING, COLUMNS('re')), not in the catalogue. */
const SYNTAX_FUNCTIONS = new Set(['lambda', 'exists', 'grouping', 'COLUMNS']);

/** Combinator suffixes stripped when looking an aggregate up (sumIf, uniqStateIf, ...). */
const MAX_COMBINATORS = 4;
/** Alias chains in system.functions are short (median -> quantile); this bounds the walk. */
const MAX_ALIAS_HOPS = 4;

export interface FunctionRow {
  name: string;
  is_aggregate: number;
  case_insensitive: number;
  alias_to: string;
  categories: string;
}

function isPure(row: FunctionRow): boolean {
  if (PURE_OTHERS.has(row.name)) return true;
  const categories = row.categories
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (categories.length === 0) return false;
  return categories.every((c) => PURE_CATEGORIES.has(c));
}

export class FunctionPolicy {
  readonly #exact = new Set<string>();
  readonly #folded = new Set<string>();
  readonly #aggregates = new Set<string>();
  readonly #foldedAggregates = new Set<string>();
  readonly #combinators: readonly string[];

  constructor(rows: readonly FunctionRow[], combinators: readonly string[]) {
    const byName = new Map(rows.map((row) => [row.name, row]));
    for (const row of rows) {
      let target = row;
      for (let hop = 0; hop < MAX_ALIAS_HOPS && target.alias_to !== ''; hop++) {
        const next = byName.get(target.alias_to);
        if (next === undefined) break;
        target = next;
      }
      // A chain longer than MAX_ALIAS_HOPS is not judged: refused.
      if (target.alias_to !== '' && byName.has(target.alias_to)) continue;
      if (!isPure(target)) continue;
      this.#exact.add(row.name);
      if (row.case_insensitive === 1) this.#folded.add(row.name.toLowerCase());
      if (target.is_aggregate === 1) {
        this.#aggregates.add(row.name);
        if (row.case_insensitive === 1) this.#foldedAggregates.add(row.name.toLowerCase());
      }
    }
    this.#combinators = combinators.filter((c) => c !== '');
  }

  #isAggregate(name: string): boolean {
    return this.#aggregates.has(name) || this.#foldedAggregates.has(name.toLowerCase());
  }

  /** An aggregate with up to MAX_COMBINATORS combinator suffixes (sumIf, avgOrNullIf, uniqMerge). */
  #isCombined(name: string, depth: number): boolean {
    if (depth > MAX_COMBINATORS) return false;
    for (const suffix of this.#combinators) {
      if (name.length <= suffix.length || !name.endsWith(suffix)) continue;
      const base = name.slice(0, -suffix.length);
      if (this.#isAggregate(base) || this.#isCombined(base, depth + 1)) return true;
    }
    return false;
  }

  allows(name: string): boolean {
    if (SYNTAX_FUNCTIONS.has(name) || this.#exact.has(name)) return true;
    if (this.#folded.has(name.toLowerCase())) return true;
    return this.#isCombined(name, 1);
  }
}

const policies = new WeakMap<QueryRunner, Promise<FunctionPolicy>>();

/** The policy of the engine behind `runner`, read once and kept (a failed read is retried next time). */
export function functionPolicy(runner: QueryRunner): Promise<FunctionPolicy> {
  let policy = policies.get(runner);
  if (policy === undefined) {
    policy = (async () => {
      const rows = await runner.rows<FunctionRow>(
        'SELECT name, is_aggregate, case_insensitive, alias_to, categories FROM system.functions',
      );
      const combinators = await runner.rows<{ name: string }>(
        'SELECT name FROM system.aggregate_function_combinators WHERE NOT is_internal',
      );
      return new FunctionPolicy(
        rows,
        combinators.map((c) => c.name),
      );
    })();
    policies.set(runner, policy);
    policy.catch(() => policies.delete(runner));
  }
  return policy;
}
