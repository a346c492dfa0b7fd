import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Separate processes, not threads: embedded chDB binds one data directory per process.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['./test/global-setup.ts'],
    // Embedded stores of the tests keep TTLs off their tables (packages/store, `ttlDeletes`):
    // fixtures of several packages are dated 2024 and 2025, past the raw feed's 90-day retention
    // (migration 009), and would vanish at the first merge. Retention's own tests open their store
    // with `ttlDeletes: 'run'`.
    env: { STORE_TTL_DELETES: 'paused' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
