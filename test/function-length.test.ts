/**
 * No function over ~100 lines (issue 17): a function that long builds a whole service in one
 * closure. Checked in the services cut by job, in every package's sources and in the scripts
 * (`npm start`'s composition among them). Measured with the TypeScript parser, every function-like
 * node (declarations, methods, arrows) from its first to its last line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
/** "~100": a few lines of slack for a signature that wraps. */
const MAX_LINES = 105;
/** Sources the parser reads: TypeScript, and the scripts' plain ES modules (scripts/setup.mjs). */
const SOURCE = /\.(ts|mts|mjs)$/;

/** Every workspace under `parent` (services, packages) that has a src folder, by its path from the root. */
function workspaceSources(parent: string): string[] {
  return readdirSync(join(ROOT, parent), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(ROOT, parent, e.name, 'src')))
    .map((e) => `${parent}/${e.name}/src`);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** `name:line function (n lines)` for every function in `text` longer than MAX_LINES. */
function longFunctions(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const fn = node.name?.getText(source) ?? '<anonymous>';
      if (last - first + 1 > MAX_LINES) found.push(`${name}:${first + 1} ${fn} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const longFunctionsIn = (file: string) => longFunctions(file.slice(ROOT.length), readFileSync(file, 'utf8'));

/** A function of `lines` lines in all, its body nested in an arrow. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `    const v${i} = ${i};`);
  return ['export function outer(): () => void {', '  return () => {', ...body, '  };', '}', ''].join('\n');
}

describe('function length', () => {
  it(`the measure: ${MAX_LINES} lines pass, one more is reported, and nested arrows count too`, () => {
    expect(longFunctions('fits.ts', functionOf(MAX_LINES))).toEqual([]);
    expect(longFunctions('long.mjs', functionOf(MAX_LINES + 1))).toEqual([
      `long.mjs:1 outer (${MAX_LINES + 1} lines)`,
    ]);
    expect(longFunctions('nested.ts', functionOf(MAX_LINES + 3))).toEqual([
      `nested.ts:1 outer (${MAX_LINES + 3} lines)`,
      `nested.ts:2 <anonymous> (${MAX_LINES + 1} lines)`,
    ]);
  });

  const areas = [...workspaceSources('services'), ...workspaceSources('packages'), 'scripts'];
  it('covers the five services, the packages and the scripts', () => {
    for (const service of ['feed-ingestor', 'feed-sink', 'history-loader', 'query-api', 'trading-gateway'])
      expect(areas).toContain(`services/${service}/src`);
    expect(areas).toContain('packages/broker-sim/src');
    expect(areas.filter((a) => a.startsWith('packages/')).length).toBeGreaterThanOrEqual(10);
  });

  for (const area of areas) {
    it(`${area}: no function over ${MAX_LINES} lines`, () => {
      const files = sourceFiles(join(ROOT, area));
      expect(files.length).toBeGreaterThan(0);
      expect(files.flatMap(longFunctionsIn)).toEqual([]);
    });
  }
});
