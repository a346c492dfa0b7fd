import './provided-context.js';

export { tempDir, uniqueName, waitFor } from './helpers.js';
export { readTopic, type TopicRecord } from './kafka.js';
export {
  type FaultPlan,
  type KafkaFaultProxy,
  type ProduceFault,
  startKafkaFaultProxy,
} from './kafka-fault-proxy.js';
export {
  openRawConnection,
  RAW_DEADLINE_MS,
  type RawConnection,
  type RawConnectionOptions,
  trickleBody,
} from './raw-connection.js';
export { recordingReads } from './statement-spy.js';
