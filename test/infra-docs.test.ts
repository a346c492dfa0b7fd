/**
 * The docs stay true to the code: every environment variable the code reads is in
 * docs/configuration.md, every query-api route docs/notebook.md calls exists, and `npm start` and the
 * docs carry the allocator settings of a process that embeds chDB.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_ENGINE_ALLOCATOR_ENV } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function sourceFiles(dir: string): string[] {
  const path = join(root, dir);
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const child = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(child);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [join(root, child)] : [];
  });
}

function workspaceSources(): string[] {
  const dirs = ['scripts', 'infra/kafka/local-kafka.ts', 'test/global-setup.ts'];
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(group, name, 'src');
      try {
        if (statSync(join(root, src)).isDirectory()) dirs.push(src);
      } catch {
        // a workspace without src/
      }
    }
  }
  return dirs.flatMap(sourceFiles);
}

// process.env.NAME, process.env['NAME'], env('NAME'), env.NAME, required(env, 'NAME'), integer(env, 'NAME', ...)
const ENV_READ =
  /process\.env\.([A-Z][A-Z0-9_]+)|process\.env\[['"]([A-Z][A-Z0-9_]+)['"]\]|\benv\(['"]([A-Z][A-Z0-9_]+)['"]|\benv\.([A-Z][A-Z0-9_]+)|\(env, ['"]([A-Z][A-Z0-9_]+)['"]/g;

describe('docs', () => {
  it('docs/configuration.md lists every environment variable the code reads', () => {
    const names = new Set<string>();
    for (const file of workspaceSources()) {
      for (const match of readFileSync(file, 'utf8').matchAll(ENV_READ)) {
        const name = match.slice(1).find((group) => group !== undefined);
        if (name) names.add(name);
      }
    }
    expect(names.size).toBeGreaterThan(15);
    const configuration = read('docs/configuration.md');
    const missing = [...names].filter((name) => !configuration.includes(`\`${name}\``)).sort();
    expect(missing).toEqual([]);
  });

  it('docs/notebook.md calls only routes the query API defines', () => {
    // The query API's own routes and the key admin routes it mounts from packages/service-http.
    const routes = [
      ...sourceFiles('services/query-api/src'),
      ...sourceFiles('packages/service-http/src/auth'),
    ]
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/['`](\/v1\/[^'`]*)['`]/g)])
      .map((m) => m[1] ?? '');
    // Route templates (/v1/instruments/:securityId/bars) as patterns for concrete paths.
    const patterns = routes.map(
      (route) => new RegExp(`^${route.replace(/\$\{[^}]+\}/g, '[a-z-]+').replace(/:[A-Za-z]+/g, '[^/]+')}$`),
    );
    const called = [...read('docs/notebook.md').matchAll(/(\/v1\/[A-Za-z0-9_/{}:-]*[A-Za-z0-9_}])/g)].map(
      (m) => (m[1] ?? '').replace(/\{[^}]+\}/g, 'x'),
    );
    expect(called.length).toBeGreaterThan(3);
    expect(called.filter((path) => !patterns.some((p) => p.test(path)))).toEqual([]);
  });

  it('npm start and docs/configuration.md set the allocator variables of an embedded engine', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    const configuration = read('docs/configuration.md');
    const entries = Object.entries(EMBEDDED_ENGINE_ALLOCATOR_ENV);
    expect(entries.length).toBeGreaterThan(0);
    for (const [name, value] of entries) {
      expect(start).toMatch(new RegExp(`(^|[ &])${name}=${value} `));
      expect(configuration).toContain(`\`${name}=${value}\``);
    }
  });
});
