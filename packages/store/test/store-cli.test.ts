/**
 * `feedpipe-store` as an operator runs it (its backup and restore run in the restore drill,
 * services/feed-sink/test/restore-drill.test.ts): usage errors exit 2 before anything is opened, and
 * `retention` migrates the store and brings its TTLs to the STORE_TTL_*_DAYS of its environment.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FEED_TABLES } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../bin/feedpipe-store.mjs', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
}

describe('feedpipe-store', () => {
  it('refuses a usage error with exit 2 and the usage', () => {
    for (const args of [
      [],
      ['backup'],
      ['restore'],
      ['backup', '--to', '/tmp/x', '--full', '--base', 'y'],
      ['nope'],
    ]) {
      const run = cli(args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: feedpipe-store backup --to DIR');
    }
  });

  it('applies the retention of its environment and says what changed', () => {
    // TTL deletes run here: the test tier's pause would remove the TTL right after setting it.
    const env = { DATA_DIR: tempDir('store-cli'), STORE_TTL_DELETES: 'run', STORE_TTL_TICKS_DAYS: '30' };
    const first = cli(['retention'], env);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      command: 'retention',
      changes: [{ table: FEED_TABLES.ticks.name, from: 90, to: 30 }],
    });
    const second = cli(['retention'], env);
    expect(JSON.parse(second.stdout)).toEqual({ command: 'retention', changes: [] });
    const bad = cli(['retention'], { ...env, STORE_TTL_TICKS_DAYS: 'ninety' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('STORE_CONFIG_INVALID');
    expect(bad.stderr).toContain('STORE_TTL_TICKS_DAYS');
  });
});
