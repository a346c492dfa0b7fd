export type ContractErrorCode =
  /** A migration statement the cluster DDL generator has no rule for. */
  | 'DDL_UNSUPPORTED'
  /** A table of the migrations without a sharding key for the cluster. */
  | 'DDL_NO_SHARDING_KEY'
  /** A sharding key that would break a table's guarantees (see ddl/sharding-keys.ts). */
  | 'DDL_SHARDING_KEY_INVALID'
  /** A migration file or folder that is not what the generator reads. */
  | 'DDL_INPUT_INVALID'
  /** A record schema id that is not `<name>@<version>`. */
  | 'SCHEMA_ID_INVALID';

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
