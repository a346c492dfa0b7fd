/**
 * The layering the tree promises: no service imports another service (what they share lives in a
 * package), no package imports a service, and packages/contracts is a leaf. Only the composition
 * scripts (scripts/, bench/) and these cross-package tests put services together. The ClickHouse
 * drivers (@clickhouse/client, chDB) are reached only through packages/store's port.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

interface Workspace {
  dir: string;
  name: string;
  kind: 'packages' | 'services';
}

function workspaces(): Workspace[] {
  return (['packages', 'services'] as const).flatMap((kind) =>
    readdirSync(join(root, kind)).flatMap((entry) => {
      try {
        const pkg = JSON.parse(readFileSync(join(root, kind, entry, 'package.json'), 'utf8')) as {
          name: string;
        };
        return [{ dir: join(kind, entry), name: pkg.name, kind }];
      } catch {
        return [];
      }
    }),
  );
}

function sources(dir: string): string[] {
  const path = join(root, dir);
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const child = join(dir, entry.name);
    if (entry.isDirectory()) return sources(child);
    return /\.(ts|mjs)$/.test(entry.name) ? [child] : [];
  });
}

/** A module specifier of a ClickHouse driver, however it is loaded (import, import(), require). */
const DRIVER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire(?:\.resolve)?\s*\(\s*|\)\s*\(\s*)['"`](@clickhouse\/client(?:-[\w-]+)?(?:\/[\w./-]*)?|chdb(?:\/[\w./-]*)?)['"`]/g;

/** Files outside packages/store that name a driver module, with the module. */
function driverImports(files: readonly string[], read: (file: string) => string): string[] {
  return files.flatMap((file) =>
    [...read(file).matchAll(DRIVER)].map((match) => `${file}: ${match[1] ?? ''}`),
  );
}

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)['"](@feedpipe\/[\w-]+|\.\.\/[^'"]*)['"]/g;

describe('workspace boundaries', () => {
  const all = workspaces();
  const serviceNames = new Set(all.filter((w) => w.kind === 'services').map((w) => w.name));

  it('no service imports another service, no package a service, and contracts nothing of ours', () => {
    const problems: string[] = [];
    for (const ws of all) {
      for (const dir of ['src', 'test', 'bin']) {
        try {
          statSync(join(root, ws.dir, dir));
        } catch {
          continue;
        }
        for (const file of sources(join(ws.dir, dir))) {
          for (const match of readFileSync(join(root, file), 'utf8').matchAll(IMPORT)) {
            const target = match[1] ?? '';
            if (target.startsWith('../')) {
              // A relative path into another service's files is the same borrowing as an import.
              const resolved = join(root, file, '..', target);
              const intoService = resolved.startsWith(join(root, 'services'));
              if (intoService && !resolved.startsWith(join(root, ws.dir, '/')))
                problems.push(`${file}: ${target}`);
              continue;
            }
            if (target === ws.name) continue;
            if (serviceNames.has(target)) problems.push(`${file}: imports the service ${target}`);
            if (ws.name === '@feedpipe/contracts') problems.push(`${file}: contracts imports ${target}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps @clickhouse/client and chdb inside packages/store: everything else uses its port', () => {
    const dirs = [
      ...all.filter((w) => w.dir !== join('packages', 'store')).map((w) => w.dir),
      'scripts',
      'bench',
      'test',
      'infra',
    ];
    const files = dirs.flatMap((dir) => {
      try {
        statSync(join(root, dir));
      } catch {
        return [];
      }
      return sources(dir);
    });
    expect(files.length).toBeGreaterThan(100);
    expect(driverImports(files, (file) => readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });

  it('would see a driver however it is loaded', () => {
    const q = "'";
    const samples: Record<string, string> = {
      a: `import { createClient } from ${q}@clickhouse/client${q};`,
      b: `import type { X } from ${q}@clickhouse/client-common${q};`,
      c: `const m = await import(${q}chdb${q});`,
      d: `createRequire(import.meta.url)(${q}chdb/connection${q});`,
      e: `import { chdbHelper } from ${q}./chdb-helper.js${q};`,
      f: `const dir = join(dataDir, ${q}chdb${q});`,
      g: `const m = require(${q}chdb${q});`,
    };
    expect(driverImports(Object.keys(samples), (file) => samples[file] ?? '')).toEqual([
      'a: @clickhouse/client',
      'b: @clickhouse/client-common',
      'c: chdb',
      'd: chdb/connection',
      'g: chdb',
    ]);
  });
});
