import './provided-context.js';

export { tempDir, uniqueName, waitFor } from './helpers.js';
export { readTopic, type TopicRecord } from './kafka.js';
