/**
 * The spec-only feed server in a process of its own (spawned by spec-feed-remote.ts), as the
 * independent server of issue #35 ran: its sends and the ingestor's reads do not share an event loop,
 * so frames arrive while the ingestor is busy, as they do from a real service. Commands come over the
 * IPC channel; every reply carries the command's id.
 */
import { type SpecFeedServerOptions, startSpecFeedServer } from './spec-feed-server.js';

export type SpecFeedCommand =
  | { id: number; op: 'state' }
  | { id: number; op: 'drop'; index: number }
  | { id: number; op: 'pause' }
  | { id: number; op: 'sequences'; ids: number[] }
  | { id: number; op: 'close' };

export type SpecFeedReply =
  | { type: 'ready'; url: string }
  | { type: 'reply'; id: number; value?: unknown; error?: string };

const send = (reply: SpecFeedReply): void => {
  process.send?.(reply);
};

const options = JSON.parse(process.argv[2] ?? '{}') as SpecFeedServerOptions;
const server = await startSpecFeedServer(options);

async function handle(command: SpecFeedCommand): Promise<unknown> {
  switch (command.op) {
    case 'state':
      return { stats: server.stats(), open: server.openConnections(), subscribed: server.subscribed() };
    case 'drop':
      await server.drop(command.index);
      return undefined;
    case 'pause':
      server.pause();
      return server.stats();
    case 'sequences':
      return {
        last: command.ids.map((id) => server.lastSequence(id)),
        snapshots: command.ids.map((id) => server.snapshotsOf(id)),
      };
    case 'close':
      await server.close();
      setImmediate(() => process.exit(0));
      return undefined;
  }
}

process.on('message', (command: SpecFeedCommand) => {
  handle(command).then(
    (value) => send({ type: 'reply', id: command.id, value }),
    (error: unknown) => send({ type: 'reply', id: command.id, error: (error as Error).message }),
  );
});
// The parent gone, this process goes too: no orphan keeps the port.
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
send({ type: 'ready', url: server.url });
