/**
 * The official ClickHouse JDBC driver (com.clickhouse:clickhouse-jdbc, what DBeaver uses) and the
 * small Java program that browses with it (JdbcMetadata.java): the driver's jars are resolved from
 * Maven Central by `mvn` (test/jdbc-metadata/pom.xml) into test/jdbc-metadata/.cache/lib once per
 * version of the pom (a stamp holds its hash), like the Kafka broker's jars; the program is
 * compiled with javac into .cache/classes. Java 17+ and Maven are prerequisites of `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HERE = import.meta.dirname;
const POM = join(HERE, 'pom.xml');
const PROGRAM = join(HERE, 'JdbcMetadata.java');
const CACHE = join(HERE, '.cache');
const LIB = join(CACHE, 'lib');
const CLASSES = join(CACHE, 'classes');
const STAMP = join(CACHE, 'stamp.sha256');
const RUN_TIMEOUT_MS = 120_000;

/** What JdbcMetadata.java prints. */
export interface JdbcBrowse {
  product: string;
  version: string;
  schemas: string[];
  tables: Array<{ schema: string; name: string; type: string }>;
  columns: Array<{ name: string; type: string; remarks: string | null }>;
  ticks: number;
}

function run(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, { cwd: HERE, encoding: 'utf8', timeout: 300_000 });
  if (result.error || result.status !== 0) {
    throw new Error(
      `jdbc-metadata: ${what} failed (${result.error?.message ?? result.stderr ?? result.stdout}); Java 17+ and Maven are needed`,
    );
  }
}

/** The class path of the driver and the program, resolved and compiled first when they changed. */
export function jdbcClassPath(): string {
  const hash = createHash('sha256').update(readFileSync(POM)).update(readFileSync(PROGRAM)).digest('hex');
  if (!(existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash)) {
    rmSync(CACHE, { recursive: true, force: true });
    mkdirSync(CLASSES, { recursive: true });
    run(
      'mvn',
      ['-q', '-B', 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${LIB}`],
      'mvn resolving the ClickHouse JDBC driver',
    );
    run('javac', ['-d', CLASSES, PROGRAM], 'javac compiling JdbcMetadata.java');
    writeFileSync(STAMP, `${hash}\n`);
  }
  return `${CLASSES}:${join(LIB, '*')}`;
}

/** Browses `jdbcUrl` with the driver, the key as the password (in the environment, not the arguments). */
export function browseWithJdbc(classPath: string, jdbcUrl: string, key: string): Promise<JdbcBrowse> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', ['-cp', classPath, 'JdbcMetadata', jdbcUrl], {
      env: { ...process.env, FEEDPIPE_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-8_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) {
        reject(new Error(`JdbcMetadata exited ${code}: ${stderr}${stdout}`));
        return;
      }
      resolve(JSON.parse(line) as JdbcBrowse);
    });
  });
}
