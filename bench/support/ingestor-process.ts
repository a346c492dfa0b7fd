/**
 * One feed ingestor in a process of its own, for bench:failover: the process the benchmark
 * SIGKILLs, freezes or stops. Argument: a JSON file of { feedUrl, brokers, prefix, ids, connections,
 * workers, socketThread, walDir?, stateFile?, leadership? } (no walDir: the log off). Prints `READY` once started;
 * over IPC, { cmd: 'stats' } answers { type: 'stats', stats } and { cmd: 'stop' } stops as SIGTERM
 * does (a leader hands its connections over to a standby first) and exits 0. With leadership, a
 * process that loses it exits 75, as the CLI does.
 */
import { readFileSync } from 'node:fs';
import { SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor, type LeadershipOptions } from '@feedpipe/feed-ingestor';

interface IngestorProcessArgs {
  feedUrl: string;
  brokers: string[];
  prefix: string;
  ids: string[];
  connections: number;
  workers: number;
  socketThread: boolean;
  walDir?: string;
  stateFile?: string;
  leadership?: LeadershipOptions;
}

const account = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const args = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as IngestorProcessArgs;
const ingestor = createFeedIngestor(
  {
    feedUrl: args.feedUrl,
    brokers: args.brokers,
    topics: prefixedTopics(args.prefix),
    partitions: 12,
    connections: args.connections,
    workers: args.workers,
    socketThread: args.socketThread,
    instruments: { trade: args.ids },
    stateFile: args.stateFile,
    wal: args.walDir ? { dir: args.walDir } : undefined,
    leadership: args.leadership,
  },
  {
    credentials: { clientId: account.clientId, token: `sim-token-${account.clientId}`, authType: 2 },
    log: (m) => process.stderr.write(`ingestor[${process.pid}]: ${m}\n`),
    onFenced: () => void ingestor.stop().finally(() => process.exit(75)),
  },
);
await ingestor.start();
process.stdout.write('READY\n');
process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'stats') process.send?.({ type: 'stats', stats: ingestor.stats() });
  if (message.cmd === 'stop') void ingestor.stop().then(() => process.exit(0));
});
