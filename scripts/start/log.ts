/**
 * The log of `npm start`, on stderr. Every secret this run knows (upstream tokens, the postback
 * secret, the ClickHouse password) is scrubbed from every line it prints, errors included.
 */
import { redactLogText } from '@feedpipe/service-http';

/** Fixed secrets, known once read. */
const knownSecrets: string[] = [];
/** Secrets that change (an account's current and recent tokens): asked for at every line. */
const secretSources: Array<() => readonly string[]> = [];

export function keepSecrets(...secrets: string[]): void {
  knownSecrets.push(...secrets);
}

export function keepSecretsOf(source: () => readonly string[]): void {
  secretSources.push(source);
}

export function redact(text: string): string {
  return redactLogText(text, [...knownSecrets, ...secretSources.flatMap((source) => source())]);
}

export function log(message: string): void {
  process.stderr.write(`${redact(message)}\n`);
}
