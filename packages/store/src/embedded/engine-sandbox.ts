/**
 * What the embedded engine may reach outside its own tables: nothing. chDB runs ClickHouse in this
 * process with its local-tool defaults, where the one user may read any file of the host through
 * the `file`, `url`, `remote`, `s3`, ... table functions, run introspection functions and call
 * Python. A query that gets past the query API's guard would then reach the host as this process.
 * So the engine is started with a configuration of its own (written into the data directory on every
 * open, never edited by hand) that takes those powers away from every session, the caller lane's
 * and the pipeline's alike, whatever the SQL says:
 *  - the user's grants are everything except SOURCES (file, url, remote, s3, hdfs, mysql, postgres,
 *    jdbc, odbc, sqlite, azure, mongo, redis, ...), INTROSPECTION and dictGet;
 *  - its profile turns introspection and the Python table function off, as constraints, so no
 *    SETTINGS clause turns them back on;
 *  - `remote_url_allow_hosts` is empty (no host may be named in a URL);
 *  - `user_files_path` and `user_scripts_path` are an empty directory of their own (executable()
 *    finds nothing to run);
 *  - the engine's memory for all its work is capped (`max_server_memory_usage`, half the machine's
 *    memory): without a configuration of its own, chDB did not hold a statement to its own
 *    `max_memory_usage` either (a GROUP BY over `arrayJoin(range(300000000))` reached 4.7 GB of RSS
 *    under a 2 GB limit and ran 72 s past a 30 s one; with one it stopped at the limit in 10 s).
 * One power is left that no configuration takes: the scalar `file(path)` function. ClickHouse checks
 * its path against `user_files_path` only in a server; in the local engine that chDB embeds the
 * check is skipped, and no grant covers it. The query API's guard refuses the function by name in
 * two independent layers (the parse tree and the statement's text); services/query-api/README.md
 * says what that leaves and the deployment that closes it (a ClickHouse server, whose reader user has no
 * source grants and whose `file()` stays inside `user_files_path`).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';

/** Where the engine's configuration lives inside the data directory. */
const CONFIG_DIR = 'engine-config';

/** Settings the profile pins (constraints `readonly`: a query's SETTINGS cannot change them). */
const PINNED_SETTINGS: Readonly<Record<string, number>> = {
  allow_introspection_functions: 0,
  allow_python_table_function: 0,
};

export interface EngineSandbox {
  /** The configuration file the engine is started with. */
  configFile: string;
  /** The empty directory the engine is given as its files and scripts folder. */
  emptyDir: string;
}

/**
 * The one user of the engine. It has no `networks` list: the embedded engine listens on nothing,
 * and in the jail it has no network at all (its loopback is down), where a list of loopback
 * addresses refuses the engine's own sessions.
 */
function usersXml(): string {
  const settings = Object.entries(PINNED_SETTINGS)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('');
  const constraints = Object.keys(PINNED_SETTINGS)
    .map((name) => `<${name}><readonly/></${name}>`)
    .join('');
  return `<clickhouse>
  <users>
    <default>
      <password></password>
      <profile>default</profile>
      <quota>default</quota>
      <grants>
        <query>GRANT ALL ON *.*</query>
        <query>REVOKE SOURCES, INTROSPECTION, dictGet ON *.*</query>
      </grants>
    </default>
  </users>
  <profiles><default>${settings}<constraints>${constraints}</constraints></default></profiles>
  <quotas><default/></quotas>
</clickhouse>
`;
}

/** The engine's share of the machine's memory: the rest is the pipeline's (Node, Kafka's clients). */
const ENGINE_MEMORY_SHARE = 0.5;

/**
 * `backupDir`, when given, is the one path BACKUP and RESTORE may write and read (File(...) under
 * it); without it the engine allows no backup path at all. The grant to back up comes with ALL,
 * so the path is what bounds it: only the backup command opens the store with one (the sink and
 * the query API never do), and the caller lane's queries are read-only besides.
 */
function configXml(usersPath: string, emptyDir: string, backupDir: string | undefined): string {
  const memory = Math.floor(totalmem() * ENGINE_MEMORY_SHARE);
  const backups =
    backupDir === undefined ? '' : `\n  <backups><allowed_path>${backupDir}/</allowed_path></backups>`;
  return `<clickhouse>
  <users_config>${usersPath}</users_config>
  <max_server_memory_usage>${memory}</max_server_memory_usage>
  <user_files_path>${emptyDir}/</user_files_path>
  <user_scripts_path>${emptyDir}/</user_scripts_path>
  <remote_url_allow_hosts></remote_url_allow_hosts>${backups}
</clickhouse>
`;
}

/** XML text may not hold these; a data directory whose path does is refused rather than escaped. */
const XML_UNSAFE = /[<>&"']/;

/**
 * Writes the engine's configuration under `dataDir` and returns how to start the engine with it.
 * The empty directory is checked to be empty: a file placed there would be readable by a query.
 */
export function writeEngineSandbox(
  dataDir: string,
  options: { backupDir?: string | undefined } = {},
): EngineSandbox {
  for (const path of [dataDir, options.backupDir ?? '']) {
    if (XML_UNSAFE.test(path)) {
      throw new Error(`an embedded engine path may not contain < > & " or ': ${path}`);
    }
  }
  if (options.backupDir !== undefined) {
    const inside = relative(dataDir, options.backupDir);
    // A backup inside the data directory would be destroyed with it, and copied into itself.
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw new Error(`the backup directory must lie outside the data directory ${dataDir}`);
    }
    mkdirSync(options.backupDir, { recursive: true, mode: 0o700 });
  }
  const dir = join(dataDir, CONFIG_DIR);
  const emptyDir = join(dir, 'empty');
  mkdirSync(emptyDir, { recursive: true, mode: 0o700 });
  const stray = readdirSync(emptyDir);
  if (stray.length > 0) {
    throw new Error(`${emptyDir} must stay empty (the engine's files folder); found ${stray.length} entries`);
  }
  const usersPath = join(dir, 'users.xml');
  const configPath = join(dir, 'config.xml');
  writeFileSync(usersPath, usersXml(), { mode: 0o600 });
  writeFileSync(configPath, configXml(usersPath, emptyDir, options.backupDir), { mode: 0o600 });
  return { configFile: configPath, emptyDir };
}
