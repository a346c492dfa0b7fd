/** A package's error on the shared base: its name, code, cause and retry verdict. */
import { describe, expect, it } from 'vitest';
import { CodedError } from '../src/index.js';

class ProbeError extends CodedError<'PROBE_FAILED' | 'PROBE_BUSY'> {
  override readonly name = 'ProbeError';
}

describe('CodedError', () => {
  it('carries the code, the cause and whether a retry can help', () => {
    const cause = new Error('underneath');
    const error = new ProbeError('PROBE_BUSY', 'busy', { cause, retryable: true });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ProbeError');
    expect(error.code).toBe('PROBE_BUSY');
    expect(error.message).toBe('busy');
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(true);
    expect(String(error)).toBe('ProbeError: busy');
  });

  it('is not retryable unless told', () => {
    expect(new ProbeError('PROBE_FAILED', 'no').retryable).toBe(false);
  });
});
