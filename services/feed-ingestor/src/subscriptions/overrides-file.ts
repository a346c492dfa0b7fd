/**
 * The subscription changes made through the ops route, kept on disk so a restart subscribes what
 * was subscribed before it (subscription-plan.ts: overrides relative to the universe). A file that
 * cannot be read at start is said and the run starts from the universe alone; one that cannot be
 * written is said (json-file.ts), and the change stays in effect until the process stops.
 */
import { isIdList, JsonFileWriter, readJsonFile } from '../json-file.js';
import { type KindOverrides, NO_OVERRIDES, type Overrides } from './subscription-plan.js';

const WHAT = 'subscriptions file';

function kindOf(value: unknown): KindOverrides | undefined {
  const v = value as { added?: unknown; removed?: unknown } | undefined;
  return v && isIdList(v.added) && isIdList(v.removed) ? { added: v.added, removed: v.removed } : undefined;
}

/** The overrides saved by an earlier run; none when there is no file (or it is unreadable: said). */
export function readOverrides(path: string, log: (message: string) => void): Overrides {
  const read = readJsonFile(path);
  if (read === 'missing') return NO_OVERRIDES;
  const content = (read === 'unreadable' ? {} : read.value) as {
    version?: unknown;
    trade?: unknown;
    ohlc?: unknown;
  };
  const trade = kindOf(content.trade);
  const ohlc = kindOf(content.ohlc);
  if (content.version === 1 && trade && ohlc) return { trade, ohlc };
  log(`${WHAT} ${path} is unreadable; starting from the universe alone`);
  return NO_OVERRIDES;
}

export class OverridesFile {
  readonly #writer: JsonFileWriter;

  constructor(path: string, log: (message: string) => void) {
    this.#writer = new JsonFileWriter(path, WHAT, log);
  }

  /** Saves `overrides` after any write before it; resolves once on disk (or failed, said once). */
  save(overrides: Overrides): Promise<void> {
    return this.#writer.write(() => ({ version: 1, ...overrides }));
  }
}
