/**
 * Just enough PromQL reading for the infra tests: the metric names an expression selects. Label
 * matchers, range and subquery brackets, grouping clauses and string literals are removed first,
 * then every identifier that is not a function, an aggregation, a keyword or part of a number is a
 * metric name. Grafana variables ($__rate_interval, $instance) only appear inside the removed parts.
 */

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

// Numbers (with exponent or duration unit), identifiers, or any other single character.
const TOKEN = /(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[a-zA-Z]*)|([a-zA-Z_:][a-zA-Z0-9_:]*)|(\s+)|(.)/g;

export function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  const tokens = [...stripped.matchAll(TOKEN)];
  tokens.forEach((match, index) => {
    const identifier = match[2];
    if (identifier === undefined || KEYWORDS.has(identifier.toLowerCase())) return;
    let next = index + 1;
    while (tokens[next]?.[3] !== undefined) next += 1;
    if (tokens[next]?.[0] === '(') return; // a function or an aggregation
    names.add(identifier);
  });
  return [...names];
}

/** Every series name a prom-client metric exposes: histograms and summaries add _sum and _count. */
export function exposedNames(metric: { name: string; type: string }): string[] {
  const type = String(metric.type);
  if (type === 'histogram') return [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`];
  if (type === 'summary') return [metric.name, `${metric.name}_sum`, `${metric.name}_count`];
  return [metric.name];
}
