/** Access tokens last 24 hours (spec, Limits). */
export const TOKEN_LIFETIME_MS = 24 * 3_600_000;

const IST_OFFSET_MS = 5.5 * 3_600_000;
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;

/** `expiryTime` of a token grant: IST wall-clock time without zone, as epoch ms. */
export function parseIstTimestamp(text: string): number | undefined {
  const m = LOCAL_TIME.exec(text);
  if (m === null) {
    const zoned = Date.parse(text);
    return Number.isNaN(zoned) ? undefined : zoned;
  }
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] === undefined ? 0 : Math.round(Number(m[7]) * 1000);
  return Date.UTC(y, mo - 1, d, h, mi, s, fraction) - IST_OFFSET_MS;
}

/** The `exp` claim of a JWT (seconds), as epoch ms; undefined when the token is not a JWT. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
