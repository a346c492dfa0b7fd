/**
 * docs/architecture.md describes one factory shape, `createX(config, deps)`, for the five services:
 * held here to the factories themselves (each takes exactly those two) and to the names the page
 * lists, so the page and the code cannot drift apart silently.
 */
import { readFileSync } from 'node:fs';
import { createFeedIngestor } from '@feedpipe/feed-ingestor';
import { createSink } from '@feedpipe/feed-sink';
import { createHistoryLoader } from '@feedpipe/history-loader';
import { createQueryApi } from '@feedpipe/query-api';
import { createTradingGateway } from '@feedpipe/trading-gateway';
import { describe, expect, it } from 'vitest';

const FACTORIES = {
  createFeedIngestor,
  createSink,
  createHistoryLoader,
  createQueryApi,
  createTradingGateway,
};
const page = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');

describe('the service factories of docs/architecture.md', () => {
  it('are named there, with their one shape', () => {
    expect(page).toContain('`createX(config, deps)`');
    for (const name of Object.keys(FACTORIES)) expect(page).toContain(`\`${name}\``);
  });

  it('each take a config and its deps, nothing else', () => {
    for (const [name, factory] of Object.entries(FACTORIES))
      expect([name, factory.length]).toEqual([name, 2]);
  });
});
