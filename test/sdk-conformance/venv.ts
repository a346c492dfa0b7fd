/**
 * The Python environment of the SDK conformance suite: a virtual environment in
 * `.venv/sdk-conformance` (git-ignored) holding the service's official SDK (and the Python clients
 * other tests drive, such as clickhouse-connect and pandas) from PyPI at the versions
 * `requirements.txt` pins, with its identity prefix renamed the way our spec renames it
 * (`dhanClientId` -> `svcClientId`, the wire name it sends in bodies, query and headers). The rename
 * is applied to the installed copy inside the venv; no SDK code lives in this repository. The same
 * venv holds the notebook libraries (pandas, polars, pyarrow) of the docs test, test/notebook-docs.
 *
 * Idempotent: a stamp (requirements, rename rule, interpreter) skips the work when nothing changed.
 * Python missing, pip failing or the rename not matching the pinned SDK are errors, never a skip.
 *
 *   npx tsx test/sdk-conformance/venv.ts     # set up (or check) the venv, print its python
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
export const VENV_DIR = join(root, '.venv', 'sdk-conformance');
export const REQUIREMENTS = join(here, 'requirements.txt');
const STAMP = join(VENV_DIR, 'feedpipe-stamp.json');

/** The spec's identity prefix: the SDK's wire name and ours. */
export const RENAME = { from: 'dhanClientId', to: 'svcClientId' } as const;
/**
 * Quoted occurrences of the wire name in the pinned SDK: the body field every POST/PUT carries
 * (dhan_http.py), the token call's query parameter and the renew/profile header (auth.py). A
 * different count means the pin moved to an SDK whose layout this rule was not checked against.
 */
const EXPECTED_RENAMES = 4;
/** The SDK needs Python 3.10 or newer (its pattern matching). */
const MIN_PYTHON: readonly [number, number] = [3, 10];
const PIP_TIMEOUT_MS = 300_000;

export type SdkSetupErrorCode =
  | 'PYTHON_MISSING'
  | 'PYTHON_TOO_OLD'
  | 'VENV_FAILED'
  | 'PIP_FAILED'
  | 'RENAME_FAILED';

export class SdkSetupError extends Error {
  readonly code: SdkSetupErrorCode;
  constructor(code: SdkSetupErrorCode, message: string) {
    super(`sdk-conformance set-up: ${message}`);
    this.name = 'SdkSetupError';
    this.code = code;
  }
}

export interface SdkVenv {
  /** The venv's interpreter, to spawn the driver with. */
  readonly python: string;
  /** The installed SDK package directory (renamed). */
  readonly sdkDir: string;
}

function run(
  cmd: string,
  args: readonly string[],
  timeout = 60_000,
): { status: number | null; out: string; err: string; error?: Error } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout, env: { ...process.env, PIP_NO_INPUT: '1' } });
  return {
    status: r.status,
    out: r.stdout ?? '',
    err: r.stderr ?? '',
    ...(r.error ? { error: r.error } : {}),
  };
}

const tail = (s: string) => s.trim().split('\n').slice(-15).join('\n');

/** The interpreter that creates the venv: FEEDPIPE_PYTHON, else python3 on PATH. */
function basePython(): { cmd: string; version: string } {
  const cmd = process.env.FEEDPIPE_PYTHON ?? 'python3';
  const r = run(cmd, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])']);
  if (r.error || r.status !== 0) {
    throw new SdkSetupError(
      'PYTHON_MISSING',
      `${cmd} not found or not runnable (${r.error?.message ?? tail(r.err)}); the SDK conformance suite needs ` +
        'Python 3.10+ with venv and pip (Debian: apt-get install python3 python3-venv)',
    );
  }
  const version = r.out.trim();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new SdkSetupError(
      'PYTHON_TOO_OLD',
      `${cmd} is Python ${version}; the SDK needs ${MIN_PYTHON.join('.')}+`,
    );
  }
  return { cmd, version };
}

function venvPython(): string {
  return join(VENV_DIR, 'bin', 'python');
}

function stampOf(pythonVersion: string): string {
  return createHash('sha256')
    .update(readFileSync(REQUIREMENTS))
    .update(`${RENAME.from}->${RENAME.to}x${EXPECTED_RENAMES}`)
    .update(pythonVersion)
    .digest('hex');
}

function sdkDirOf(python: string): string {
  const r = run(python, [
    '-c',
    'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("dhanhq").origin))',
  ]);
  if (r.status !== 0)
    throw new SdkSetupError('PIP_FAILED', `dhanhq is not importable in the venv:\n${tail(r.err)}`);
  return r.out.trim();
}

/**
 * Renames the quoted wire name in the installed SDK's modules (bodies, query and headers all use
 * the same literal) and drops its compiled caches so Python reads the renamed sources.
 */
function renameIdentityPrefix(sdkDir: string): number {
  const quoted = (s: string) => `"${s}"`;
  let count = 0;
  for (const name of readdirSync(sdkDir)) {
    if (!name.endsWith('.py')) continue;
    const file = join(sdkDir, name);
    const text = readFileSync(file, 'utf8');
    const parts = text.split(quoted(RENAME.from));
    if (parts.length === 1) continue;
    count += parts.length - 1;
    writeFileSync(file, parts.join(quoted(RENAME.to)));
  }
  rmSync(join(sdkDir, '__pycache__'), { recursive: true, force: true });
  return count;
}

const LOCK_DIR = `${VENV_DIR}.lock`;
/** A set-up takes at most the pip timeout plus venv creation; a lock older than that is stale. */
const LOCK_STALE_MS = PIP_TIMEOUT_MS + 180_000;
const LOCK_POLL_MS = 500;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Several test files use this venv and run in parallel processes: one builds it while the others
 * wait (a directory as the lock: mkdir is atomic), bounded by LOCK_STALE_MS.
 */
function withVenvLock<T>(work: () => T): T {
  mkdirSync(dirname(LOCK_DIR), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      break;
    } catch {
      if (Date.now() > deadline) {
        rmSync(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      sleepSync(LOCK_POLL_MS);
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

/** Creates or reuses the venv; throws SdkSetupError with what to do when it cannot. */
export function ensureSdkVenv(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): SdkVenv {
  return withVenvLock(() => buildOrReuse(log));
}

function buildOrReuse(log: (line: string) => void): SdkVenv {
  const base = basePython();
  const stamp = stampOf(base.version);
  if (existsSync(STAMP) && existsSync(venvPython())) {
    try {
      if (JSON.parse(readFileSync(STAMP, 'utf8')).stamp === stamp) {
        return { python: venvPython(), sdkDir: sdkDirOf(venvPython()) };
      }
    } catch {
      // An unreadable stamp or a venv whose SDK no longer imports is stale: rebuilt below.
    }
  }
  log(`sdk-conformance: creating ${VENV_DIR} with Python ${base.version} and the pinned SDK from PyPI...`);
  rmSync(VENV_DIR, { recursive: true, force: true });
  mkdirSync(dirname(VENV_DIR), { recursive: true });
  const venv = run(base.cmd, ['-m', 'venv', VENV_DIR], 120_000);
  if (venv.error || venv.status !== 0) {
    throw new SdkSetupError(
      'VENV_FAILED',
      `${base.cmd} -m venv failed (Debian: apt-get install python3-venv):\n${tail(venv.err || String(venv.error))}`,
    );
  }
  const pip = run(
    venvPython(),
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', REQUIREMENTS],
    PIP_TIMEOUT_MS,
  );
  if (pip.error || pip.status !== 0) {
    throw new SdkSetupError(
      'PIP_FAILED',
      `pip install -r ${REQUIREMENTS} failed:\n${tail(pip.err || String(pip.error))}`,
    );
  }
  const sdkDir = sdkDirOf(venvPython());
  const renamed = renameIdentityPrefix(sdkDir);
  if (renamed !== EXPECTED_RENAMES) {
    throw new SdkSetupError(
      'RENAME_FAILED',
      `expected ${EXPECTED_RENAMES} occurrences of "${RENAME.from}" in ${sdkDir}, found ${renamed}: check the rename against the pinned SDK`,
    );
  }
  writeFileSync(STAMP, JSON.stringify({ stamp, python: base.version, renamed }, null, 2));
  log(`sdk-conformance: venv ready (${renamed} renames of ${RENAME.from} -> ${RENAME.to})`);
  return { python: venvPython(), sdkDir };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.stdout.write(`${ensureSdkVenv().python}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
