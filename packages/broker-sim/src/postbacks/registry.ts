/**
 * Registered postback URLs. The service takes one while an access token is generated in the web
 * console or while an API key is created; the simulator keeps one URL per account and per way it
 * was given ('token' or 'apiKey'), and an account's updates go to each distinct URL it has.
 */

export type PostbackSource = 'token' | 'apiKey';

/** Bound on URL length, the size of a browser's address bar and far above any real callback. */
export const MAX_POSTBACK_URL_LENGTH = 2048;

export class PostbackRegistry {
  private readonly urls = new Map<string, Map<PostbackSource, string>>();

  /** Validates and stores `url`; answers the refusal reason, or undefined when stored. */
  set(clientId: string, source: PostbackSource, url: string): string | undefined {
    const reason = checkUrl(url);
    if (reason) return reason;
    let bySource = this.urls.get(clientId);
    if (!bySource) {
      bySource = new Map();
      this.urls.set(clientId, bySource);
    }
    bySource.set(source, url);
    return undefined;
  }

  clear(clientId: string, source: PostbackSource): void {
    this.urls.get(clientId)?.delete(source);
  }

  get(clientId: string, source: PostbackSource): string | undefined {
    return this.urls.get(clientId)?.get(source);
  }

  /** Distinct URLs an update of this account goes to. */
  targets(clientId: string): string[] {
    const bySource = this.urls.get(clientId);
    return bySource ? [...new Set(bySource.values())] : [];
  }
}

function checkUrl(url: string): string | undefined {
  if (url.length > MAX_POSTBACK_URL_LENGTH) {
    return `postbackUrl must be at most ${MAX_POSTBACK_URL_LENGTH} characters`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'postbackUrl must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return 'postbackUrl must use http or https';
  }
  return undefined;
}
