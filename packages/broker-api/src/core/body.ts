/** Request body and query encoding. JSON is the default; the spec accepts form bodies as well. */
export type BodyEncoding = 'json' | 'form';

export type QueryValue = string | number | boolean | undefined;

export function encodeQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text.length === 0 ? '' : `?${text}`;
}

export interface EncodedBody {
  contentType: string;
  text: string;
}

/**
 * Form bodies are flat: arrays become repeated keys, nested objects are sent as JSON text (the
 * service's form decoding of nested values is not documented, so such bodies should use JSON).
 */
export function encodeBody(body: unknown, encoding: BodyEncoding): EncodedBody {
  if (encoding === 'json') return { contentType: 'application/json', text: JSON.stringify(body) };
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      params.append(key, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
    }
  }
  return { contentType: 'application/x-www-form-urlencoded', text: params.toString() };
}
