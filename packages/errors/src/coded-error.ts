/**
 * The shape every package's error takes (STYLE.md, typed errors with stable codes): a code from
 * the package's own list, the cause, and whether trying again can help. Each package declares its
 * codes and a class of its own on this base (`class StoreError extends CodedError<StoreErrorCode>`),
 * so callers tell packages apart by class name and code, and no package repeats the constructor.
 */
export interface CodedErrorOptions {
  cause?: unknown;
  /** Whether trying again can help. Default false. */
  retryable?: boolean;
}

export abstract class CodedError<Code extends string> extends Error {
  readonly code: Code;
  readonly retryable: boolean;

  constructor(code: Code, message: string, options: CodedErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
