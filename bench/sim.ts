/**
 * `npm run bench:sim`: how many packets per second the simulator's load mode delivers to one client
 * that only counts. The simulator runs in this process; the client runs in a child process (its own
 * core), connects with permessage-deflate off, subscribes to `--instruments` trades and counts packets
 * by walking the header length bytes. The rate is measured on the client side after a warm-up.
 *
 * Flags: --seconds <n> (measured time, default 5), --warmup <n> (default 1), --pps <n> (target,
 * default 4000000), --instruments <n> (subscriptions, at most 5000, default 5000),
 * --packets-per-message <n> (default 400).
 * Progress goes to stderr; the last stdout line is {"bench":"sim","pps":...}.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { INX_EQ_FIRST_ID, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { buildSubscriptionRequests, MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { WebSocket } from 'ws';

interface ClientReport {
  packets: number;
  messages: number;
  bytes: number;
}

type ClientMessage =
  | { kind: 'ready' }
  | ({ kind: 'counts' } & ClientReport)
  | { kind: 'error'; message: string };

function flag(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new Error(`--${name} must be a number in [${min}, ${max}]`);
  return n;
}

/** Child role: connect, subscribe, count, report counts every 100 ms over IPC. */
async function runClient(url: string, instruments: number): Promise<void> {
  const send = (message: ClientMessage): void => {
    process.send?.(message);
  };
  const counts: ClientReport = { packets: 0, messages: 0, bytes: 0 };
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.binaryType = 'nodebuffer';
  ws.on('message', (data: Buffer, isBinary) => {
    if (!isBinary) return;
    counts.messages++;
    counts.bytes += data.length;
    // Header byte 9 is the packet length; a zero length ends the frame (spec: Binary packets).
    for (let off = 0; off + 11 <= data.length; ) {
      const length = data[off + 9] ?? 0;
      if (length === 0) break;
      counts.packets++;
      off += length;
    }
  });
  ws.on('error', (error) => send({ kind: 'error', message: error.message }));
  ws.on('close', () => process.exit(0));
  await new Promise<void>((resolve) => ws.once('open', () => resolve()));
  const list = Array.from({ length: instruments }, (_, n) => ({
    exchangeSegment: 'INX_EQ' as const,
    securityId: String(INX_EQ_FIRST_ID + n),
  }));
  for (const text of buildSubscriptionRequests(15, list)) ws.send(text);
  send({ kind: 'ready' });
  const timer = setInterval(() => send({ kind: 'counts', ...counts }), 100);
  process.on('disconnect', () => {
    clearInterval(timer);
    ws.terminate();
    process.exit(0);
  });
}

async function runBench(values: Record<string, string | undefined>): Promise<void> {
  const seconds = flag(values.seconds, 5, 'seconds', 0.5, 600);
  const warmup = flag(values.warmup, 1, 'warmup', 0, 60);
  const targetPps = flag(values.pps, 4_000_000, 'pps', 1_000, 50_000_000);
  const instruments = flag(
    values.instruments,
    MAX_SUBSCRIPTIONS_PER_CONNECTION,
    'instruments',
    1,
    MAX_SUBSCRIPTIONS_PER_CONNECTION,
  );
  const packetsPerMessage = flag(values['packets-per-message'], 400, 'packets-per-message', 4, 100_000);

  const model = new MarketModel({ seed: 1, instruments: Math.max(instruments, 1_000) });
  const server = await startFeedServer({
    model,
    port: 0,
    load: { packetsPerSecond: targetPps, tickIntervalMs: 2 },
    maxPacketsPerMessage: packetsPerMessage,
  });
  process.stderr.write(
    `simulator on ${server.url}, target ${targetPps} packets/s over ${instruments} instruments\n`,
  );
  const child = fork(
    fileURLToPath(import.meta.url),
    [
      '--role',
      'client',
      '--url',
      server.connectUrl('1000000001', 'sim-token-1000000001'),
      '--instruments',
      String(instruments),
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  let latest: ClientReport = { packets: 0, messages: 0, bytes: 0 };
  let failure: string | undefined;
  let ready = false;
  child.on('message', (message: ClientMessage) => {
    if (message.kind === 'ready') ready = true;
    else if (message.kind === 'counts') latest = message;
    else failure = message.message;
  });
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  try {
    for (let waited = 0; !ready && failure === undefined && waited < 10_000; waited += 50) await sleep(50);
    if (!ready) throw new Error(failure ?? 'the client did not connect within 10 s');
    await sleep(warmup * 1000);
    const start = { ...latest, at: performance.now() };
    const serverStart = server.stats();
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      await sleep(Math.min(1000, end - performance.now()));
      const elapsed = (performance.now() - start.at) / 1000;
      process.stderr.write(
        `  ${elapsed.toFixed(1)} s: ${Math.round((latest.packets - start.packets) / elapsed)} packets/s\n`,
      );
    }
    // The last report is up to 100 ms old: measure up to the report's own arrival time.
    await sleep(150);
    const finish = { ...latest, at: performance.now() - 50 };
    const serverEnd = server.stats();
    if (failure !== undefined) throw new Error(`client: ${failure}`);
    const elapsed = (finish.at - start.at) / 1000;
    const pps = Math.round((finish.packets - start.packets) / elapsed);
    const result = {
      bench: 'sim',
      pps,
      targetPps,
      seconds: Number(elapsed.toFixed(2)),
      instruments,
      messagesPerSecond: Math.round((finish.messages - start.messages) / elapsed),
      megabytesPerSecond: Number(((finish.bytes - start.bytes) / elapsed / 1e6).toFixed(1)),
      packetsPerMessage,
      serverSentPps: Math.round((serverEnd.packets - serverStart.packets) / elapsed),
      deferred: serverEnd.deferred - serverStart.deferred,
      skipped: serverEnd.skipped - serverStart.skipped,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    child.disconnect();
    child.kill();
    await server.close();
  }
}

const { values } = parseArgs({
  strict: true,
  options: {
    role: { type: 'string' },
    url: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    pps: { type: 'string' },
    instruments: { type: 'string' },
    'packets-per-message': { type: 'string' },
  },
});

if (values.role === 'client') {
  await runClient(values.url ?? '', Number(values.instruments ?? MAX_SUBSCRIPTIONS_PER_CONNECTION));
} else {
  await runBench(values).catch((error: unknown) => {
    process.stderr.write(`bench:sim failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
