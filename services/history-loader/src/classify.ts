/**
 * What a failed unit means for the run. Permanent errors (8xx data errors such as 813 invalid
 * security id, other 4xx answers, requests the client refuses) are recorded and skipped; transient
 * ones retry with backoff; a spent budget stops the run cleanly; access errors stop it with a
 * reason, since every further call would fail the same way.
 */
import { isBrokerApiError } from '@feedpipe/broker-api';

export type Failure =
  | { kind: 'permanent'; reason: string }
  | { kind: 'transient'; reason: string }
  | { kind: 'budget'; reason: string; retryAt: number | undefined }
  | { kind: 'fatal'; reason: string }
  | { kind: 'aborted'; reason: string };

/** Data API codes that say the account cannot use the Data APIs at all. */
const FATAL_DATA_CODES = new Set(['806', '807', '808', '809', '810', 'DH-901', 'DH-902', 'DH-903']);

export function classifyFailure(error: unknown): Failure {
  if (!isBrokerApiError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'permanent', reason: `unexpected: ${message}` };
  }
  // The client keeps secrets out of its messages; the code and the service's text are enough.
  const reason = [error.code, error.errorCode, error.errorMessage ?? error.message]
    .filter((s) => s !== undefined && s !== '')
    .join(' ');
  switch (error.code) {
    case 'BUDGET_EXHAUSTED':
      return { kind: 'budget', reason, retryAt: error.retryAt };
    case 'ABORTED':
      return { kind: 'aborted', reason };
    case 'TOKEN_EXPIRED':
      return { kind: 'fatal', reason };
    case 'RATE_LIMITED':
    case 'QUEUE_FULL':
    case 'TIMEOUT':
    case 'NETWORK':
      return { kind: 'transient', reason };
    case 'HTTP_ERROR': {
      if (error.status === 401 || (error.errorCode !== undefined && FATAL_DATA_CODES.has(error.errorCode))) {
        return { kind: 'fatal', reason };
      }
      if (error.errorCode === '800' || error.errorCode === '805' || (error.status ?? 0) >= 500) {
        return { kind: 'transient', reason };
      }
      return { kind: 'permanent', reason };
    }
    default:
      return { kind: 'permanent', reason };
  }
}
