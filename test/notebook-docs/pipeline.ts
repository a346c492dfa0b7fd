/**
 * A running pipeline for the docs test, composed as `npm start` composes it (scripts/start.ts), at a
 * smaller size: the simulator (feed + REST) -> feed ingestor -> Kafka (the test run's broker, topics
 * of its own) -> sink -> embedded ClickHouse -> query API, plus the history load of the demo plan
 * (pipelineLoadOptions, as npm start builds it). Keys as npm start prints them: a read key and an
 * admin key of the query API.
 */

import { createSimulator, INX_EQ_FIRST_ID, restServerHook, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor } from '@feedpipe/feed-ingestor';
import { createSink } from '@feedpipe/feed-sink';
import {
  createHistoryLoader,
  InstrumentMasterLoader,
  pipelineInstrumentMaster,
  pipelineLoadOptions,
  type RunResult,
} from '@feedpipe/history-loader';
import { createQueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { Registry } from 'prom-client';

export interface DocsPipeline {
  apiUrl: string;
  readKey: string;
  adminKey: string;
  store: Store;
  history: RunResult;
  close(): Promise<void>;
}

/** The instruments subscribed: the first INX_EQ ones, as npm start's DEMO_INSTRUMENTS takes them. */
const INSTRUMENTS = 50;

export async function startDocsPipeline(brokers: string[], root: string): Promise<DocsPipeline> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const stop of closers.reverse()) await stop().catch(() => undefined);
  };
  try {
    const sim = await createSimulator({
      seed: 1,
      instruments: 2_000,
      feed: { port: 0, tradesPerSecond: 2, tickIntervalMs: 100 },
      rest: restServerHook({ port: 0 }),
    });
    closers.push(() => sim.close());
    const account = SIM_TEST_ACCOUNTS[0];
    if (!account?.webToken || !sim.rest) throw new Error('the simulator has no REST server or test account');
    const credentials = { clientId: account.clientId, token: account.webToken, authType: 2 as const };

    const store = createStore({ dataDir: tempDir('notebook-docs') });
    closers.push(() => store.close());
    await runMigrations(store.internal);

    const topics = prefixedTopics(uniqueName('nb'));
    const instruments = Array.from({ length: INSTRUMENTS }, (_, i) => String(INX_EQ_FIRST_ID + i));
    const ingestor = createFeedIngestor(
      {
        feedUrl: sim.feed.url,
        brokers,
        topics,
        connections: 1,
        instruments: { trade: instruments, ohlc: instruments.slice(0, 10) },
      },
      {
        credentials,
        log: () => undefined,
      },
    );
    await ingestor.start();
    closers.push(() => ingestor.stop());
    const sink = createSink(
      { brokers, topics, groupId: uniqueName('nb-sink') },
      { store, log: () => undefined },
    );
    await sink.start();
    closers.push(() => sink.stop());

    const loadOptions = pipelineLoadOptions(
      {},
      { baseUrl: sim.rest.baseUrl, clientId: credentials.clientId },
      root,
    );
    if (!loadOptions) throw new Error('the history load is on by default');
    // The instrument master, as npm start loads it before its services start.
    await new InstrumentMasterLoader(pipelineInstrumentMaster({}, sim.rest.baseUrl), {
      store: store.internal,
      registry: new Registry(),
    }).load();
    const loader = createHistoryLoader(loadOptions, {
      clickhouse: store.internal,
      accessToken: credentials.token,
    });
    closers.push(() => loader.stop());
    const history = await loader.run();

    const api = await createQueryApi({ host: '127.0.0.1', port: 0, logLevel: false }, { store });
    const apiUrl = await api.start();
    closers.push(() => api.stop());
    const readKey = (await api.keys.create('notebook-docs-read', ['read'])).key;
    const adminKey = (await api.keys.create('notebook-docs-admin', ['admin'])).key;

    // The examples read the last hour of the first instrument: wait until some of it is stored.
    await waitFor(
      async () => {
        const [row] = await store.internal.rows<{ n: number | string }>(
          `SELECT count() AS n FROM market.ticks WHERE security_id = ${INX_EQ_FIRST_ID}`,
        );
        return Number(row?.n ?? 0) >= 20;
      },
      120_000,
      'ticks of the first instrument stored',
    );
    return { apiUrl, readKey, adminKey, store, history, close };
  } catch (error) {
    await close();
    throw error;
  }
}
