export type { PipelineStatus, PipelineStatusSource } from './pipeline-status.js';
export { registerStatusPage } from './status-page-routes.js';
