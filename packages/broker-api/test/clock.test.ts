import { describe, expect, it } from 'vitest';
import { systemClock } from '../src/index.js';

describe('systemClock.sleepUntil', () => {
  it('never resolves before the time asked for', async () => {
    const sleepUntil = systemClock.sleepUntil;
    expect(sleepUntil).toBeDefined();
    for (const ahead of [1, 2, 3, 7, 25]) {
      const at = Date.now() + ahead;
      await sleepUntil?.(at);
      expect(Date.now()).toBeGreaterThanOrEqual(at);
    }
  });

  it('resolves at once for a time already passed, and rejects when aborted', async () => {
    await expect(systemClock.sleepUntil?.(Date.now() - 5)).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = systemClock.sleepUntil?.(Date.now() + 60_000, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
