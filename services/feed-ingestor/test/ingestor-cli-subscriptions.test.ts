/**
 * `feed-ingestor run` as an operator starts it, with an ops key from a file: an instrument added
 * through the ops route from outside the process is subscribed on the feed and in Kafka; the change
 * is kept (beside the state file) and subscribed again by the next run; the key is never printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { inxIds, SIM_CLIENT, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'bin', 'feed-ingestor.mjs');
const KEY = 'cli-ops-key-0123456789abcdefghij';

let server: FeedServer | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await server?.close().catch(() => undefined);
  server = undefined;
});

interface Run {
  child: ChildProcess;
  /** The ops route's URL, from the start line. */
  route: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `feed-ingestor run`; resolves once it printed where its ops route is. */
async function run(env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'run'], { env: { ...process.env, ...env }, stdio: 'pipe' });
  children.push(child);
  let output = '';
  const keep = (d: Buffer): void => {
    output = (output + d.toString()).slice(-16_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const found = (): string | undefined => /subscriptions (http:\/\/\S+\/v1\/subscriptions)/.exec(output)?.[1];
  await waitFor(
    () => found() !== undefined,
    60_000,
    () => `the start line (${output})`,
    100,
  );
  return { child, route: found() as string, output: () => output, exited };
}

const subscribedOnFeed = (feed: FeedServer): number =>
  feed.listConnections().reduce((sum, c) => sum + c.tradeSubscriptions, 0);

describe('feed-ingestor run: subscriptions while running', () => {
  it('takes an instrument added through the ops route into Kafka and subscribes it again at the next start', async () => {
    const model = new MarketModel({ seed: 47, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 50, tickIntervalMs: 20 });
    const feed = server;
    const ids = inxIds(model, 12);
    const dir = tempDir('ingestor-cli-subs');
    writeFileSync(join(dir, 'universe.json'), JSON.stringify(ids.slice(0, 10)));
    writeFileSync(join(dir, 'ops-key'), `${KEY}\n`);
    const topics = topicsFor(uniqueName('clisubs'));
    const env = {
      SVC_FEED_URL: feed.url,
      SVC_CLIENT_ID: SIM_CLIENT.clientId,
      SVC_ACCESS_TOKEN: SIM_CLIENT.token,
      KAFKA_BROKERS: brokers.join(','),
      TOPIC_TRADES: topics.trades,
      TOPIC_OHLC: topics.ohlc,
      TOPIC_REFERENCE: topics.reference,
      TOPIC_STATUS: topics.status,
      UNIVERSE_FILE: join(dir, 'universe.json'),
      INGESTOR_CONNECTIONS: '2',
      INGESTOR_WORKERS: '1',
      INGESTOR_STATE_FILE: join(dir, 'state.json'),
      INGESTOR_OPS_KEY_FILE: join(dir, 'ops-key'),
      INGESTOR_OPS_PORT: '0',
      METRICS_PORT: '0',
    };
    const first = await run(env);
    await waitFor(() => subscribedOnFeed(feed) === 10, 30_000, 'the universe subscribed');

    const added = ids.slice(10, 12);
    const answer = await fetch(first.route, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ add: added }),
    });
    expect(answer.status).toBe(200);
    await waitFor(() => subscribedOnFeed(feed) === 12, 10_000, 'the added instruments subscribed');
    await waitFor(
      async () => {
        const trades = await readTopic(brokers, topics.trades);
        return added.every((id) => trades.some((r) => r.key === id && r.value.type === 'trade'));
      },
      30_000,
      'trades of the added instruments in Kafka',
      500,
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await run(env);
    await waitFor(() => subscribedOnFeed(feed) === 12, 30_000, 'the kept change subscribed again');
    const held = await fetch(second.route, { headers: { 'x-api-key': KEY } });
    const body = (await held.json()) as {
      held: { trade: number };
      overrides: { trade: { added: string[] } };
    };
    expect(body.held.trade).toBe(12);
    expect(body.overrides.trade.added.sort()).toEqual([...added].sort());
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(first.output() + second.output()).not.toContain(KEY);
  });
});
