/**
 * What the endpoint tells clients about "the server": the engine's version (error trailers) and
 * time zone (X-ClickHouse-Timezone: clients read DateTime values in it), read once from the engine
 * through the API's own query path; a failed read is retried on the next request.
 */
import type { QueryRunner } from '../query/query-runner.js';

export interface ServerInfo {
  version: string;
  timezone: string;
}

/** X-ClickHouse-Server-Display-Name: clients show it; the host name is not theirs to know. */
export const DISPLAY_NAME = 'feedpipe';

export class ServerInfoSource {
  readonly #runner: QueryRunner;
  #info: Promise<ServerInfo> | undefined;
  #known: ServerInfo | undefined;

  constructor(runner: QueryRunner) {
    this.#runner = runner;
  }

  /** The last known answer (for error replies, which must not wait on the store). */
  get known(): ServerInfo {
    return this.#known ?? { version: 'unknown', timezone: 'UTC' };
  }

  get(): Promise<ServerInfo> {
    if (this.#info === undefined) {
      const info = this.#runner
        .rows<ServerInfo>('SELECT version() AS version, timezone() AS timezone')
        .then((rows) => {
          const row = rows[0] ?? { version: 'unknown', timezone: 'UTC' };
          this.#known = row;
          return row;
        });
      info.catch(() => {
        this.#info = undefined;
      });
      this.#info = info;
    }
    return this.#info;
  }
}
