/**
 * Where the engine process runs: in a jail of Linux namespaces when the machine allows them, else as
 * a plain child process.
 *
 * The jail (`unshare` from util-linux, as an unprivileged user: no root, no setuid helper):
 *  - a user namespace, so the rest needs no privilege on the host;
 *  - a mount namespace whose root is an empty tmpfs holding only what the engine needs, bound at
 *    the same paths as on the host: the system's programs and libraries (/usr, /lib*, read-only),
 *    Node, the installed packages and the host script (read-only), the data directory and the
 *    backup directory (read-write), /etc/localtime, the cgroup tree (read-only: the engine reads its
 *    memory limit there), four character devices and a private /tmp. No other /sys, no home, no
 *    project checkout, no other file of the host;
 *  - a PID namespace with a /proc of its own, where the engine is process 1 and sees no process of
 *    the host: `/proc/self/environ` holds the allocator's settings and TZ, and `/proc/self/fd/1..3`
 *    are sockets (Node's pipes to a child are socket pairs), which no `open` can reach, so a query
 *    cannot read the requests or answers of others through them;
 *  - a network namespace with no interface up: no URL, remote or socket reaches anything.
 * The old root is unmounted after `pivot_root`, so no path leads back to the host. The engine's
 * environment, in the jail or not, is the allocator's settings and TZ (engineEnv), nothing more.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { EMBEDDED_ENGINE_ALLOCATOR_ENV } from '../../engine-allocator.js';

/** How the engine process is isolated: `STORE_ENGINE_ISOLATION`. */
export type EngineIsolation = 'namespaces' | 'process';
/** `auto` takes namespaces where the machine allows them. */
export type EngineIsolationSetting = EngineIsolation | 'auto';

export const ENGINE_ISOLATION_ENV = 'STORE_ENGINE_ISOLATION';

const UNSHARE_FLAGS = [
  '--user',
  '--map-root-user',
  '--mount',
  '--net',
  '--pid',
  '--ipc',
  '--uts',
  '--fork',
  // The engine dies with the unshare process that the store holds.
  '--kill-child',
];

/**
 * Builds the jail's root and starts the command in it. Positional arguments: the new root's mount
 * point, then `ro`/`rw` path pairs until `--`, then the command. Run by `sh` inside the namespaces.
 */
const JAIL_SCRIPT = `set -e
# pivot_root lives in sbin, which a service's PATH may leave out.
PATH="$PATH:/usr/sbin:/sbin:/usr/bin:/bin"
root=$1; shift
mount -t tmpfs -o mode=0755 tmpfs "$root"
# /tmp first: a directory bound below it (a test's data directory) must not be hidden by it.
mkdir -p "$root/dev" "$root/tmp"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
for device in null zero random urandom; do : > "$root/dev/$device"; mount --bind "/dev/$device" "$root/dev/$device"; done
bind() {
  if [ -d "$2" ]; then mkdir -p "$root$2"; else mkdir -p "$root$(dirname "$2")"; : > "$root$2"; fi
  mount --rbind "$2" "$root$2"
  if [ "$1" = ro ]; then mount -o remount,bind,ro "$root$2"; fi
}
while [ "$1" != -- ]; do
  if [ -L "$2" ]; then mkdir -p "$root$(dirname "$2")"; ln -s "$(readlink "$2")" "$root$2"; else bind "$1" "$2"; fi
  shift 2
done
shift
cd "$root"
mkdir .host
pivot_root . .host
cd /
# The proc of this PID namespace: the engine's processes only. (chDB hands a raw insert's buffer
# to the engine through /proc/self/fd, and umount reads the mount table there.)
mkdir /proc
mount -t proc proc /proc
umount -l /.host
rmdir /.host
exec "$@"
`;

let namespacesAvailable: boolean | undefined;

/** Whether this machine lets an unprivileged process build the jail (probed once per process). */
export function canUseNamespaces(): boolean {
  if (namespacesAvailable === undefined) {
    const probe = spawnSync('unshare', [...UNSHARE_FLAGS, 'true'], { stdio: 'ignore', timeout: 10_000 });
    namespacesAvailable = probe.status === 0;
  }
  return namespacesAvailable;
}

export function isolationOf(setting: EngineIsolationSetting): EngineIsolation {
  if (setting !== 'auto') return setting;
  return canUseNamespaces() ? 'namespaces' : 'process';
}

export interface JailPaths {
  /** Read-only inside the jail. */
  readOnly: string[];
  /** Writable inside the jail. */
  readWrite: string[];
  /** An empty directory of the host that the jail's root is mounted on (in its namespace only). */
  mountPoint: string;
}

/** The system paths every jail holds, read-only, where they exist. */
const SYSTEM_PATHS = [
  '/usr',
  '/lib',
  '/lib64',
  '/lib32',
  '/libx32',
  '/bin',
  '/sbin',
  '/etc/localtime',
  '/sys/fs/cgroup',
];

export interface SpawnPlan {
  command: string;
  args: string[];
  /** The environment to spawn with; undefined: the store's own (the jail's builder clears it). */
  env: Record<string, string> | undefined;
}

/**
 * The environment the engine gets: nothing of the pipeline's but its time zone, plus the allocator
 * settings its memory needs (engine-allocator.ts; glibc reads them at the process's start).
 */
function engineEnv(): Record<string, string> {
  return {
    ...EMBEDDED_ENGINE_ALLOCATOR_ENV,
    ...(process.env.TZ === undefined ? {} : { TZ: process.env.TZ }),
  };
}

/** The paths not inside another of them (a read-only bind cannot take a mount point inside it). */
function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)].sort();
  return unique.filter((path) => !unique.some((other) => other !== path && path.startsWith(`${other}/`)));
}

/** How to start `command args` with the isolation asked for. */
export function spawnPlan(
  isolation: EngineIsolation,
  paths: JailPaths,
  command: string,
  args: string[],
): SpawnPlan {
  if (isolation === 'process') return { command, args, env: engineEnv() };
  if (!canUseNamespaces()) {
    throw new Error(
      `${ENGINE_ISOLATION_ENV}=namespaces, but this machine does not let an unprivileged process create user namespaces (unshare failed)`,
    );
  }
  const readOnly = outermost([...SYSTEM_PATHS.filter((path) => existsSync(path)), ...paths.readOnly]);
  const pairs = [
    ...readOnly.flatMap((path) => ['ro', path]),
    ...paths.readWrite.flatMap((path) => ['rw', path]),
  ];
  const environment = Object.entries(engineEnv()).map(([name, value]) => `${name}=${value}`);
  return {
    command: 'unshare',
    // The jail is built by the host's programs (unshare, sh, mount: found on the PATH of the
    // store's environment, which the spawn passes on), then `env -i` starts the engine with its
    // own environment and nothing else.
    args: [
      ...UNSHARE_FLAGS,
      ...['sh', '-c', JAIL_SCRIPT, 'jail', paths.mountPoint, ...pairs, '--'],
      ...['env', '-i', ...environment, command, ...args],
    ],
    env: undefined,
  };
}
