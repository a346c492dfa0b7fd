/**
 * A bound on what a statement may ask the engine to compute before it runs. ClickHouse folds
 * constant expressions while it analyses a statement, and `max_execution_time` does not cover that
 * phase: 30 `levenshteinDistance` terms over constant strings ran 218 s against a 30 s limit, and
 * neither KILL QUERY nor the time limit can reach a statement still being analysed (it is not yet
 * in system.processes). So the guard bounds the work by the statement's shape, from the calls the
 * text scan found (call-scan.ts): how many calls in all, and how many of the functions whose cost
 * grows faster than their input or that make large values out of small constants.
 */

/** Calls of any function in one statement. */
export const MAX_CALLS = 1_000;

/** Calls of the functions below, together, in one statement. */
export const MAX_HEAVY_CALLS = 6;

/** Super-linear in their arguments (edit distances, fuzzy and multi-pattern matching), or amplifying. */
const HEAVY = new Set(
  [
    'levenshteinDistance',
    'levenshteinDistanceUTF8',
    'editDistance',
    'editDistanceUTF8',
    'damerauLevenshteinDistance',
    'jaroSimilarity',
    'jaroWinklerSimilarity',
    'stringJaccardIndex',
    'stringJaccardIndexUTF8',
    'byteHammingDistance',
    'ngramDistance',
    'ngramDistanceUTF8',
    'ngramDistanceCaseInsensitive',
    'ngramDistanceCaseInsensitiveUTF8',
    'ngramSearch',
    'ngramSearchUTF8',
    'ngramSearchCaseInsensitive',
    'ngramSearchCaseInsensitiveUTF8',
    'multiFuzzyMatchAny',
    'multiFuzzyMatchAnyIndex',
    'multiFuzzyMatchAllIndices',
    'multiMatchAny',
    'multiMatchAnyIndex',
    'multiMatchAllIndices',
    'repeat',
    'range',
    'replicate',
    'arrayWithConstant',
    'arrayResize',
    'space',
    'leftPad',
    'rightPad',
    'leftPadUTF8',
    'rightPadUTF8',
    'randomString',
    'randomFixedString',
    'randomPrintableASCII',
    'randomStringUTF8',
  ].map((name) => name.toLowerCase()),
);

/** Why the statement is over budget, or undefined when it is within it. */
export function analysisBudgetRefusal(calls: readonly string[]): string | undefined {
  if (calls.length > MAX_CALLS) {
    return `the statement calls functions ${calls.length} times; at most ${MAX_CALLS} are accepted`;
  }
  const heavy = calls.filter((name) => HEAVY.has(name.toLowerCase()));
  if (heavy.length > MAX_HEAVY_CALLS) {
    return `the statement calls costly functions (${[...new Set(heavy)].join(', ')}) ${heavy.length} times; at most ${MAX_HEAVY_CALLS} are accepted, since their cost before the statement runs is not bounded by its time limit`;
  }
  return undefined;
}
