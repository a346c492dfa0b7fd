/**
 * The key admin routes (key-routes.ts) from outside the process: what a service's CLI uses when
 * the service runs on embedded chDB, whose data directory the running process holds, or whenever
 * it is given the service's URL and an admin key. The admin key travels in the x-api-key header;
 * errors carry the service's error message, never the key.
 */
import type { ApiKeyInfo } from './api-keys.js';
import { API_KEY_HEADER } from './auth-hook.js';

export class KeyAdminError extends Error {
  override readonly name = 'KeyAdminError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** One call to a service must not hang a CLI: bounded, like every other wait here. */
const TIMEOUT_MS = 30_000;

export class KeyAdminClient {
  readonly #base: string;
  readonly #adminKey: string;

  constructor(baseUrl: string, adminKey: string) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.#adminKey = adminKey;
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          [API_KEY_HEADER]: this.#adminKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new KeyAdminError(0, `cannot reach ${this.#base}: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 500);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // Not the service's error envelope: the text as it came.
      }
      throw new KeyAdminError(response.status, `${method} ${path}: HTTP ${response.status}: ${message}`);
    }
    return JSON.parse(text) as T;
  }

  create<S extends string>(name: string, scopes: readonly S[]): Promise<ApiKeyInfo<S> & { key: string }> {
    return this.#call('POST', '/v1/admin/keys', { name, scopes });
  }

  async list<S extends string>(): Promise<ApiKeyInfo<S>[]> {
    return (await this.#call<{ keys: ApiKeyInfo<S>[] }>('GET', '/v1/admin/keys')).keys;
  }

  /** false when the service has no such key. */
  async revoke(keyId: string): Promise<boolean> {
    try {
      await this.#call('DELETE', `/v1/admin/keys/${encodeURIComponent(keyId)}`);
      return true;
    } catch (error) {
      if (error instanceof KeyAdminError && error.status === 404) return false;
      throw error;
    }
  }
}
