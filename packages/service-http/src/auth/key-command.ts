/**
 * The key commands of a service's CLI (`create-key NAME SCOPES`, `list-keys`, `revoke-key ID`),
 * against the service's key store in this process, or against the running service through its
 * admin routes (KeyAdminClient). Embedded chDB lets one process hold its data directory, so while
 * `npm start` (or the service) runs, the local store cannot be opened: then, or whenever a URL is
 * given, the commands go to the running service with an admin key from the environment.
 */
import type { ApiKeyInfo } from './api-keys.js';
import { KeyAdminClient } from './key-admin-client.js';

/** What both the local store and the admin client offer. */
export interface KeyManager<S extends string> {
  create(name: string, scopes: readonly S[]): Promise<ApiKeyInfo<S> & { key: string }>;
  list(): Promise<ApiKeyInfo<S>[]>;
  revoke(keyId: string): Promise<boolean>;
}

export interface KeyCommandOptions<S extends string> {
  /** The CLI's name, for usage lines. */
  program: string;
  scopes: readonly S[];
  /** The running service's URL (a --url flag or the environment); set: the commands go there. */
  url: string | undefined;
  /** Where the service listens by default: used when the local store is held by it. */
  defaultUrl: string;
  /** Admin key for the running service (environment), and the variable that holds it. */
  adminKey: string | undefined;
  adminKeyVariable: string;
  /** Opens the local key store; rejects when another process holds the store. */
  openLocal: () => Promise<{ keys: KeyManager<S>; close(): Promise<void> }>;
  out: (line: string) => void;
  err: (line: string) => void;
}

export const KEY_COMMANDS = ['create-key', 'list-keys', 'revoke-key'] as const;

class UsageError extends Error {}

function scopesOf<S extends string>(raw: string | undefined, allowed: readonly S[]): S[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (list.length === 0)
    throw new UsageError(`give the scopes as a comma-separated list of ${allowed.join(', ')}`);
  for (const s of list) {
    if (!(allowed as readonly string[]).includes(s)) {
      throw new UsageError(`unknown scope "${s}" (allowed: ${allowed.join(', ')})`);
    }
  }
  return list as S[];
}

async function execute<S extends string>(
  keys: KeyManager<S>,
  command: string,
  args: readonly string[],
  options: KeyCommandOptions<S>,
): Promise<void> {
  if (command === 'create-key') {
    const name = args[0];
    if (name === undefined)
      throw new UsageError(`usage: ${options.program} create-key NAME ${options.scopes.join(',')}`);
    const created = await keys.create(name, scopesOf(args[1], options.scopes));
    options.out(JSON.stringify({ keyId: created.keyId, scopes: created.scopes, key: created.key }));
    options.err('store the key now: it is not kept and cannot be shown again');
  } else if (command === 'list-keys') {
    for (const key of await keys.list()) options.out(JSON.stringify(key));
  } else {
    const keyId = args[0];
    if (keyId === undefined) throw new UsageError(`usage: ${options.program} revoke-key KEY_ID`);
    options.out((await keys.revoke(keyId)) ? 'revoked' : 'no such key');
  }
}

function remote<S extends string>(url: string, options: KeyCommandOptions<S>): KeyAdminClient {
  if (options.adminKey === undefined || options.adminKey === '') {
    throw new UsageError(
      `to manage the keys of the service at ${url}, set ${options.adminKeyVariable} to a key with the admin scope`,
    );
  }
  return new KeyAdminClient(url, options.adminKey);
}

/** Runs one key command; returns the exit code (0, 1 = failed, 2 = usage). */
export async function runKeyCommand<S extends string>(
  command: string,
  args: readonly string[],
  options: KeyCommandOptions<S>,
): Promise<number> {
  try {
    if (options.url !== undefined) {
      await execute(remote(options.url, options), command, args, options);
      return 0;
    }
    let local: Awaited<ReturnType<typeof options.openLocal>>;
    try {
      local = await options.openLocal();
    } catch (error) {
      // The store is held (embedded chDB of a running service) or unreachable: the running service can do it.
      if (options.adminKey === undefined) {
        throw new UsageError(
          `the key store cannot be opened here (${(error as Error).message}); while the service runs, set ${options.adminKeyVariable} to an admin key (npm start prints one) and, unless it listens on ${options.defaultUrl}, pass --url`,
        );
      }
      await execute(remote(options.defaultUrl, options), command, args, options);
      return 0;
    }
    try {
      await execute(local.keys, command, args, options);
    } finally {
      await local.close();
    }
    return 0;
  } catch (error) {
    options.err((error as Error).message);
    return error instanceof UsageError ? 2 : 1;
  }
}
