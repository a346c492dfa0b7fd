// What the vitest global setup (test/global-setup.ts) provides to every test file.
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the run's Kafka broker(s); empty when FEEDPIPE_TEST_KAFKA=off. */
    kafkaBrokers: string[];
  }
}
