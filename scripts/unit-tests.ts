/**
 * `npm run test:unit`: the tests that need no Kafka broker, no ClickHouse engine, no browser and no
 * Python, in about a minute, without `npm run setup`. Which tests those are is read from the tests
 * themselves, so the list never goes stale: a test file is a unit test unless it, or a test-local
 * module it imports (relative imports, followed to any depth), names one of the heavy parts below,
 * starts another process, or says `// test-tier: integration` on a line of its own (it waits on real
 * time: token renewals, rate-limit windows).
 * Everything else runs in `npm test` as before.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What a test file shows when it needs a heavy part (a broker, the engine, a browser, Python). */
const HEAVY = [
  /inject\(\s*'kafkaBrokers'\s*\)/, // the broker of test/global-setup.ts
  /\bstartLocalKafka\b|\bstartLocalKafkaCluster\b/,
  /\bcreateStore\s*\(/, // embedded chDB
  /\bcreateEmbeddedStore\b|['"]chdb(?:\/connection)?['"]/,
  /playwright|chromium/i,
  /\bvenv\b|python3?\b|pytest/i,
  /\bpromtool\b|\bamtool\b/,
  /\b(?:spawn|fork|execFile)(?:Sync)?\s*\(/, // other processes: the CLIs, kill and resume
  /^\/\/ test-tier: integration$/m, // said by the file itself: it waits on real time (renewals, rate windows)
];

/** The test folders vitest.config.ts includes. */
function testFiles(): string[] {
  const folders: string[] = [join(root, 'test')];
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(join(root, group))) folders.push(join(root, group, name, 'test'));
  }
  const files: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'fixtures') walk(path);
      else if (entry.isFile() && entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The file a relative import names (`./x.js` is `./x.ts` in the sources). */
function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  }
  return undefined;
}

/** Whether `file` or a test-local module it imports needs a heavy part. */
function needsHeavyParts(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (HEAVY.some((pattern) => pattern.test(text))) return true;
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = resolveImport(file, match[1] as string);
    // Only modules of the tests themselves: a package's src is what the unit tests are of.
    if (target !== undefined && !target.includes('/src/') && needsHeavyParts(target, seen)) return true;
  }
  return false;
}

const unit = testFiles().filter((file) => !needsHeavyParts(file));
if (process.argv.includes('--list')) {
  for (const file of unit) console.log(relative(root, file));
  process.exit(0);
}
console.error(`test:unit: ${unit.length} test files that need no broker, engine, browser or Python`);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...unit.map((f) => relative(root, f))], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FEEDPIPE_TEST_KAFKA: 'off' },
});
process.exit(result.status ?? 1);
