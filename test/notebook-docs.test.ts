/**
 * The notebook documentation runs as written: every Python and shell code block of README.md and
 * docs/notebook.md is executed, in document order, by the project's Python venv (pandas, polars,
 * pyarrow and requests from PyPI, pinned in test/sdk-conformance/requirements.txt) against a running
 * pipeline (simulator -> ingestor -> Kafka -> sink -> ClickHouse -> query API, and the demo history
 * load), with the keys in the environment as a reader keeps them. Then the API's real answers in
 * every format are read with pyarrow, pandas and polars, which must all see UTC instants.
 *
 * Needs the run's Kafka broker and Python 3.10+ with venv and pip (as the SDK conformance suite).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type CodeBlock, codeBlocks, PYTHON, SHELL } from './notebook-docs/code-blocks.js';
import { type DocsPipeline, startDocsPipeline } from './notebook-docs/pipeline.js';
import { ensureSdkVenv } from './sdk-conformance/venv.js';

const root = join(import.meta.dirname, '..');
const DOCS = ['README.md', 'docs/notebook.md'];
const RUNNER = join(root, 'test', 'notebook-docs', 'run_blocks.py');
const READER = join(root, 'test', 'notebook-docs', 'read_outputs.py');
/** A first run creates the venv and downloads the libraries from PyPI. */
const SETUP_TIMEOUT_MS = 600_000;
const RUN_TIMEOUT_MS = 300_000;

/**
 * Shell blocks not run here, each with the reason; matched by a line the block holds. README's
 * quick start is the project's own set-up: CI runs `npm install` and `npm test` (this test among
 * them) from .ci/run, and `npm start` composes the pipeline this test starts.
 */
const NOT_RUN: Record<string, string> = {
  'npm start        # the whole pipeline on embedded defaults; prints its URLs; Ctrl-C stops everything':
    'the quick start: .ci/run runs npm install and npm test; npm start composes the pipeline started here',
};

interface BlockLine {
  index: number;
  file: string;
  line: number;
  lang: string;
  ok: boolean;
  error?: string;
  stdout?: string;
  tables?: Record<string, { kind: string; rows: number; columns: Record<string, string> }>;
}
type RunLine = BlockLine | { done: boolean };

let pipeline: DocsPipeline;
let python: string;
const executable: CodeBlock[] = [];
const skipped: CodeBlock[] = [];

function pythonEnv(): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(python)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    FEEDPIPE_API: pipeline.apiUrl,
    FEEDPIPE_API_KEY: pipeline.readKey,
    FEEDPIPE_ADMIN_KEY: pipeline.adminKey,
    FEEDPIPE_SECURITY_ID: '1000001',
    // Loopback only: anything else goes to a closed port.
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost,::1',
  };
}

function runPython(
  script: string,
  input: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script], { cwd: root, env: pythonEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-20_000);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  python = ensureSdkVenv().python;
  for (const file of DOCS) {
    for (const block of codeBlocks(join(root, file), file)) {
      if (!PYTHON.has(block.lang) && !SHELL.has(block.lang)) continue;
      const reason = Object.keys(NOT_RUN).some((line) => block.code.includes(line));
      (reason ? skipped : executable).push(block);
    }
  }
  pipeline = await startDocsPipeline(inject('kafkaBrokers'), root);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await pipeline?.close();
});

describe('README.md and docs/notebook.md run as written', () => {
  let lines: BlockLine[] = [];

  it('the demo history load the examples read finished', () => {
    expect(pipeline.history.state, JSON.stringify(pipeline.history)).toBe('done');
  });

  it('runs every Python and shell block, in order, without an error', {
    timeout: RUN_TIMEOUT_MS,
  }, async () => {
    expect(skipped.map((b) => `${b.file}:${b.line}`)).toHaveLength(Object.keys(NOT_RUN).length);
    expect(executable.filter((b) => b.file === 'README.md' && PYTHON.has(b.lang))).toHaveLength(1);
    expect(executable.filter((b) => b.file === 'docs/notebook.md').length).toBeGreaterThanOrEqual(9);
    const run = await runPython(RUNNER, JSON.stringify({ blocks: executable }));
    const parsed = run.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as RunLine);
    lines = parsed.filter((l): l is BlockLine => 'index' in l);
    const failed = lines.find((l) => !l.ok);
    expect(failed, failed ? `${failed.file}:${failed.line} failed:\n${failed.error}` : '').toBeUndefined();
    expect(parsed.at(-1), run.stderr.slice(-3000)).toEqual({ done: true });
    expect(lines).toHaveLength(executable.length);
  });

  it('the blocks return data, with UTC times, in pandas, polars and pyarrow', () => {
    const tables = (file: string) =>
      Object.assign({}, ...lines.filter((l) => l.file === file).map((l) => l.tables ?? {})) as NonNullable<
        BlockLine['tables']
      >;
    const readme = tables('README.md');
    const notebook = tables('docs/notebook.md');
    expect(readme.bars?.rows).toBeGreaterThan(0);
    expect(readme.bars?.columns.time).toMatch(/^datetime64\[\w+, UTC\]$/);
    expect(readme.bars_pl?.columns.time).toMatch(/time_zone='UTC'/);
    expect(notebook.bars?.columns.time).toMatch(/UTC/);
    expect(notebook.t?.columns.received_at).toMatch(/time_unit='us', time_zone='UTC'/);
    expect(notebook.busiest?.columns.minute).toMatch(/UTC/);
    expect(notebook.daily?.columns.time).toMatch(/UTC/);
    // The trading day, parsed as a plain day.
    expect(notebook.daily?.columns.date).toMatch(/^datetime64\[\w+\]$/);
    for (const name of ['bars', 't', 'per_minute', 'daily', 'busiest', 'history', 'movers', 'instruments']) {
      expect(notebook[name]?.rows, `docs/notebook.md: ${name}`).toBeGreaterThan(0);
    }
    // The admin-route block printed a fresh key with the read scope.
    const curl = lines.find((l) => l.lang === 'sh' && l.stdout?.includes('"scopes"'));
    expect(JSON.parse(curl?.stdout ?? '{}')).toMatchObject({ name: 'notebook', scopes: ['read'] });
  });
});

describe('pyarrow, pandas and polars read the real answers with UTC instants', () => {
  type Column = { type: string; first: string | null };
  let report: Record<string, Record<string, Record<string, Column>>> = {};

  beforeAll(async () => {
    const run = await runPython(READER, '');
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    report = JSON.parse(run.stdout) as typeof report;
  }, RUN_TIMEOUT_MS);

  const TIME_COLUMNS: Record<string, string[]> = {
    sql: ['ltt', 'received_at', 'minute', 'ist'],
    bars: ['time'],
    ticks: ['received_at', 'ltt', 'lut'],
  };

  it('every time column of every format is UTC-aware in every reader, with the same instant', () => {
    const problems: string[] = [];
    for (const [source, columns] of Object.entries(TIME_COLUMNS)) {
      for (const column of columns) {
        const instants = new Set<number>();
        for (const format of ['parquet', 'arrow', 'arrowstream', 'csv', 'json', 'ndjson']) {
          const readers = report[`${source}.${format}`] ?? {};
          expect(Object.keys(readers).length, `${source}.${format}`).toBeGreaterThanOrEqual(2);
          for (const [reader, described] of Object.entries(readers)) {
            const seen = described[column];
            const where = `${source}.${format} ${reader} ${column}: ${JSON.stringify(seen)}`;
            if (!seen || !/UTC/.test(seen.type) || !seen.first?.endsWith('+00:00')) problems.push(where);
            else instants.add(Date.parse(seen.first));
          }
        }
        if (instants.size !== 1) problems.push(`${source}.${column}: different instants ${[...instants]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('a date stays a date in the binary formats', () => {
    for (const format of ['parquet', 'arrow', 'arrowstream']) {
      for (const [reader, described] of Object.entries(report[`sql.${format}`] ?? {})) {
        expect(described.day?.type, `${format} ${reader}`).not.toMatch(/UTC|timestamp|datetime64/i);
        expect(described.day?.first, `${format} ${reader}`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    }
  });
});
