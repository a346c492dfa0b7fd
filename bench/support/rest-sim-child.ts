/**
 * The REST simulator (limits on) in a child process of a benchmark, so its event loop and its core
 * are not the measured process's: the benchmark forks its own script with `--role sim`, which calls
 * `serveRestSim`; `startRestSim` forks it and waits for its URL and the test account's web token
 * (web tokens are minted per process, so the child hands over its own).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createRestServer, MarketModel, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';

type SimMessage = { kind: 'ready'; baseUrl: string; token: string };

/** In the child: serves until the parent disconnects. */
export async function serveRestSim(seed: number): Promise<void> {
  const server = await createRestServer({ model: new MarketModel({ seed, instruments: 10 }) });
  process.send?.({
    kind: 'ready',
    baseUrl: server.baseUrl,
    token: SIM_TEST_ACCOUNTS[0]?.webToken ?? '',
  } satisfies SimMessage);
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}

/** In the benchmark: forks `script --role sim`; `child.disconnect()` stops it. */
export async function startRestSim(
  script: string,
): Promise<{ child: ChildProcess; baseUrl: string; token: string }> {
  const child = fork(script, ['--role', 'sim'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { baseUrl, token } = await new Promise<SimMessage>((resolve, reject) => {
    child.once('message', (m: SimMessage) => resolve(m));
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { child, baseUrl, token };
}
