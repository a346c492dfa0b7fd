// Public surface of @feedpipe/broker-sim (the feed engineer completes this with the CLI's simulator).
export * from './feed/index.js';
export * from './market/index.js';
