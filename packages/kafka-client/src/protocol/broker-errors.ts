/**
 * The broker error codes the consumer acts on (Kafka protocol, `Errors.java`), and how to read
 * them out of @platformatic/kafka's errors: its response parsers throw a ResponseError holding one
 * ProtocolError per failed field (`apiCode`) and the parsed `response`. Read by shape, never by
 * `instanceof`, so another copy of the library would be understood too.
 */
export const BrokerError = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  GROUP_AUTHORIZATION_FAILED: 30,
  KAFKA_STORAGE_ERROR: 56,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  MEMBER_ID_REQUIRED: 79,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  OFFSET_NOT_AVAILABLE: 78,
  UNKNOWN_TOPIC_ID: 100,
} as const;

/** The coordinator moved or is not ready: find it again and retry. */
export const COORDINATOR_MOVED: ReadonlySet<number> = new Set([
  BrokerError.COORDINATOR_LOAD_IN_PROGRESS,
  BrokerError.COORDINATOR_NOT_AVAILABLE,
  BrokerError.NOT_COORDINATOR,
  BrokerError.REQUEST_TIMED_OUT,
  BrokerError.NETWORK_EXCEPTION,
]);

/** This member's generation is over: it must join again (the assignment may change). */
export const REJOIN_NEEDED: ReadonlySet<number> = new Set([
  BrokerError.REBALANCE_IN_PROGRESS,
  BrokerError.ILLEGAL_GENERATION,
  BrokerError.UNKNOWN_MEMBER_ID,
  BrokerError.FENCED_INSTANCE_ID,
]);

/** A partition's leader is elsewhere or not known yet: refresh the metadata and fetch again. */
export const LEADER_MOVED: ReadonlySet<number> = new Set([
  BrokerError.UNKNOWN_TOPIC_OR_PARTITION,
  BrokerError.LEADER_NOT_AVAILABLE,
  BrokerError.NOT_LEADER_OR_FOLLOWER,
  BrokerError.REQUEST_TIMED_OUT,
  BrokerError.NETWORK_EXCEPTION,
  BrokerError.KAFKA_STORAGE_ERROR,
  BrokerError.FENCED_LEADER_EPOCH,
  BrokerError.UNKNOWN_LEADER_EPOCH,
  BrokerError.OFFSET_NOT_AVAILABLE,
  BrokerError.UNKNOWN_TOPIC_ID,
]);

/** Join errors no retry can fix (configuration or authorisation). */
export const JOIN_FATAL: ReadonlySet<number> = new Set([
  BrokerError.INCONSISTENT_GROUP_PROTOCOL,
  BrokerError.INVALID_GROUP_ID,
  BrokerError.INVALID_SESSION_TIMEOUT,
  BrokerError.GROUP_AUTHORIZATION_FAILED,
  BrokerError.GROUP_MAX_SIZE_REACHED,
]);

/** Every broker error code carried by `error` (empty for network errors, timeouts and our own errors). */
export function brokerErrorCodes(error: unknown): number[] {
  const out: number[] = [];
  const visit = (e: unknown, depth: number): void => {
    if (depth > 5 || typeof e !== 'object' || e === null) return;
    const code = (e as { apiCode?: unknown }).apiCode;
    if (typeof code === 'number' && code !== 0) out.push(code);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const x of inner) visit(x, depth + 1);
    // Our own errors wrap the library's as `cause`.
    visit((e as { cause?: unknown }).cause, depth + 1);
  };
  visit(error, 0);
  return out;
}

/** Whether `error` carries broker error `code`. */
export function hasBrokerError(error: unknown, code: number): boolean {
  return brokerErrorCodes(error).includes(code);
}

/** The parsed response a library ResponseError carries (e.g. JoinGroup's member id on MEMBER_ID_REQUIRED). */
export function responseOf<T>(error: unknown): T | undefined {
  const response = (error as { response?: unknown } | null)?.response;
  return typeof response === 'object' && response !== null ? (response as T) : undefined;
}
