export type ContractErrorCode =
  /** A record schema id that is not `<name>@<version>`. */
  'SCHEMA_ID_INVALID';

/** The one error type of @feedpipe/contracts; nothing here is retryable (the input is wrong). */
export class ContractError extends Error {
  readonly code: ContractErrorCode;
  readonly retryable = false;
  constructor(code: ContractErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ContractError';
    this.code = code;
  }
}
