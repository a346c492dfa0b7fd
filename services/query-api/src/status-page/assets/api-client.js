// Every request of the status page goes through here, with the API key from the sign-in form in
// the x-api-key header. The key is never put in a URL: a URL lands in browser history, proxy and
// server logs, and screen shares.

/** An answer other than 2xx, with the API's error code and message when it sent its envelope. */
export class ApiError extends Error {
  constructor(path, status, code, message) {
    super(message ? `${message} (HTTP ${status})` : `${path}: HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    /** The key was refused (401) or lacks the scope (403): the page signs out. */
    this.auth = status === 401 || status === 403;
  }
}

/**
 * `getKey` reads the key in use; `onRefused(key)` is told which key the API refused, so a late
 * answer to an older key cannot sign out a newer one.
 */
export function createApiClient({ getKey, onRefused }) {
  async function send(path, { accept = 'application/json', signal } = {}) {
    const key = getKey();
    const response = await fetch(path, { headers: { 'x-api-key': key, accept }, signal, cache: 'no-store' });
    if (response.ok) return response;
    let code;
    let message;
    try {
      const body = await response.json();
      code = body?.error?.code;
      message = body?.error?.message;
    } catch {
      // Not the API's envelope (a proxy's page): the status alone says enough.
    }
    const error = new ApiError(path, response.status, code, message);
    if (error.auth) onRefused(key);
    throw error;
  }

  return {
    send,
    async json(path, options) {
      return (await send(path, options)).json();
    },
  };
}
