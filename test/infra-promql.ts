/**
 * Just enough PromQL reading for the infra tests: the metric names an expression selects. Label
 * matchers, range and subquery brackets, grouping clauses and string literals are removed first,
 * then every identifier that is not a function, an aggregation, a keyword or part of a number is a
 * metric name. Grafana variables ($__rate_interval, $instance) only appear inside the removed parts.
 * Also the panels of a dashboard with their queries, and the rules of an alerts file.
 */

import { parse } from 'yaml';

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

/** One panel of a Grafana dashboard and the PromQL of its queries. */
export interface DashboardPanel {
  title: string;
  exprs: string[];
}

/** The panels of a dashboard file (rows skipped) with their queries, nested panels included. */
export function dashboardPanels(dashboardJson: string): DashboardPanel[] {
  const found: DashboardPanel[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.targets)) {
      const exprs = record.targets
        .map((t) => (t as Record<string, unknown>).expr)
        .filter((e): e is string => typeof e === 'string');
      found.push({ title: String(record.title ?? '(untitled)'), exprs });
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'targets') walk(value);
  };
  walk(JSON.parse(dashboardJson) as unknown);
  return found;
}

export interface AlertRule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}

/** The rules of a Prometheus rules file (alerts.yml). */
export function alertRulesOf(rulesYaml: string): AlertRule[] {
  const file = parse(rulesYaml) as { groups: Array<{ rules: AlertRule[] }> };
  return file.groups.flatMap((g) => g.rules);
}
