/** Postbacks of the simulator: URL registration and in-order, retried delivery of order updates. */
export { type DispatcherDeps, PostbackDispatcher, type PostbackStats } from './dispatcher.js';
export {
  DEFAULT_POSTBACK_OPTIONS,
  type PostbackOptions,
  type ResolvedPostbackOptions,
  resolvePostbackOptions,
} from './options.js';
export {
  alertUpdate,
  foreverUpdate,
  orderUpdate,
  type PostbackKind,
  type PostbackUpdate,
  usOrderUpdate,
} from './payload.js';
export { MAX_POSTBACK_URL_LENGTH, PostbackRegistry, type PostbackSource } from './registry.js';
export { registerPostbackAuthRoutes, registerPostbackRoutes } from './routes.js';
