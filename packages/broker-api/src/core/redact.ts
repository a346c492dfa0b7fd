/**
 * Removes secret values (access token, PIN, TOTP code, app and partner secrets) from text that may
 * end up in an error message or log. The service may echo inputs back in its errorMessage, so
 * every message built from a response passes through here.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length === 0) continue;
    out = out.split(secret).join('***');
  }
  return out;
}

/** Error messages from the service are kept short; a whole HTML page helps no one. */
export function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
