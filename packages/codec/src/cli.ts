import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { decodeCapture } from './cli/decode-command.js';
import { encodeNdjson } from './cli/encode-command.js';
import { CodecError } from './errors.js';

const USAGE = `usage:
  feed-codec decode <capture-file>
      prints one JSON record per line (stable shape plus receivedAt and frame) on stdout,
      and a summary (frames, packets by type, malformed, unknown) as JSON on stderr
  feed-codec encode [--input <ndjson-file>] --output <capture-file>
      turns such NDJSON (stdin by default) back into a capture file
`;

class UsageError extends Error {}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'decode') {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
    if (positionals.length !== 1) throw new UsageError('decode takes exactly one capture file');
    const summary = await decodeCapture(positionals[0] as string, process.stdout);
    process.stderr.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  if (command === 'encode') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { input: { type: 'string', short: 'i' }, output: { type: 'string', short: 'o' } },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (values.output === undefined) throw new UsageError('encode needs --output <capture-file>');
    const input =
      values.input === undefined || values.input === '-' ? process.stdin : createReadStream(values.input);
    const summary = await encodeNdjson(input, values.output);
    process.stderr.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  throw new UsageError(`unknown command ${command}`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      process.stderr.write(`feed-codec: ${(error as Error).message}\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof CodecError) {
      process.stderr.write(`feed-codec: ${error.code}: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`feed-codec: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
