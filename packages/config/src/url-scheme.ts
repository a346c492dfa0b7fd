/** Whether `raw` starts with `scheme://` for one of `protocols` (the URL kind of both readers). */
export function hasScheme(raw: string, protocols: readonly string[]): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  return scheme !== undefined && protocols.includes(scheme);
}

/** `ws:// or wss://`: the schemes in the words of the messages and the docs. */
export function schemesOf(protocols: readonly string[]): string {
  return protocols.map((p) => `${p}://`).join(' or ');
}
