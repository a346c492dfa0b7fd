/**
 * No function over ~100 lines in the services cut by job (issue 17): a function that long builds a
 * whole service in one closure. Measured with the TypeScript parser, every function-like node
 * (declarations, methods, arrows) from its first to its last line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const SERVICES = ['feed-ingestor', 'feed-sink', 'history-loader', 'query-api', 'trading-gateway'];
/** "~100": a few lines of slack for a signature that wraps. */
const MAX_LINES = 105;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const name = node.name?.getText(source) ?? '<anonymous>';
      if (last - first + 1 > MAX_LINES)
        found.push(`${file.slice(ROOT.length)}:${first + 1} ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  for (const service of SERVICES) {
    it(`${service}: no function over ${MAX_LINES} lines`, () => {
      const files = sourceFiles(join(ROOT, 'services', service, 'src'));
      expect(files.length).toBeGreaterThan(0);
      expect(files.flatMap(longFunctions)).toEqual([]);
    });
  }
});
