/**
 * A secret from the environment or from a file named by `<NAME>_FILE` (Docker and Kubernetes mount
 * secrets as files), read once at start. Messages name the variable, never the value.
 */
import { readFileSync } from 'node:fs';
import { CredentialsError } from './errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The secret `name`, or undefined when neither `name` nor `name_FILE` is set. */
export function readSecret(env: Env, name: string): string | undefined {
  const direct = env[name]?.trim();
  const file = env[`${name}_FILE`]?.trim();
  if (direct && file) {
    throw new CredentialsError('CONFIG_INVALID', `give ${name} or ${name}_FILE, not both`);
  }
  if (direct) return direct;
  if (!file) return undefined;
  return readSecretFile(file, `${name}_FILE`);
}

/** The trimmed content of a secret file; `what` names it in errors (the path is not secret). */
export function readSecretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CredentialsError('SECRET_UNREADABLE', `${what}: cannot read ${path} (${code})`, {
      cause: error,
    });
  }
  const value = text.trim();
  if (value.length === 0) throw new CredentialsError('SECRET_UNREADABLE', `${what}: ${path} is empty`);
  return value;
}
