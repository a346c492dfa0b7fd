/**
 * openapi-generator-cli, the third-party client generator of the openapi-clients test: its jar is
 * resolved from Maven Central by `mvn` (test/openapi-clients/pom.xml) into
 * test/openapi-clients/.cache/lib once per version of the pom (a stamp holds its hash), like the
 * Kafka broker's jars. Java 17+ and Maven are prerequisites of `npm test` already.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const POM = join(here, 'pom.xml');
const CACHE = join(here, '.cache');
const LIB = join(CACHE, 'lib');
const STAMP = join(CACHE, 'pom.sha256');
const GENERATE_TIMEOUT_MS = 240_000;

/** The generator's jar, resolved first if the cache does not hold this pom's version. */
export function generatorJar(): string {
  const hash = createHash('sha256').update(readFileSync(POM)).digest('hex');
  if (!(existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash)) {
    rmSync(LIB, { recursive: true, force: true });
    mkdirSync(CACHE, { recursive: true });
    const mvn = spawnSync('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${LIB}`], {
      cwd: here,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (mvn.error || mvn.status !== 0) {
      throw new Error(
        `openapi-clients: mvn could not resolve openapi-generator-cli (${mvn.error?.message ?? mvn.stderr ?? mvn.stdout}); Java 17+ and Maven are needed`,
      );
    }
    writeFileSync(STAMP, `${hash}\n`);
  }
  const jar = readdirSync(LIB).find((f) => f.startsWith('openapi-generator-cli-') && f.endsWith('.jar'));
  if (!jar) throw new Error(`openapi-clients: no openapi-generator-cli jar in ${LIB}`);
  return join(LIB, jar);
}

/** Generates the Python client of `spec` as package `packageName` under `outDir` (emptied first). */
export function generatePythonClient(
  jar: string,
  spec: string,
  outDir: string,
  packageName: string,
): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const child = spawn(
      'java',
      [
        '-jar',
        jar,
        'generate',
        '-g',
        'python',
        '-i',
        spec,
        '-o',
        outDir,
        '--package-name',
        packageName,
        '--global-property',
        'apiTests=false,modelTests=false,apiDocs=false,modelDocs=false',
        '--additional-properties',
        'generateSourceCodeOnly=true',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-8_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), GENERATE_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`openapi-generator exited ${code} for ${spec}:\n${stderr}`));
    });
  });
}
