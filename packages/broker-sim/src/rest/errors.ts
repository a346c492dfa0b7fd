/**
 * The simulator's REST errors. Every refusal leaves the server as the spec's JSON body
 * `{ errorType, errorCode, errorMessage }`; `code` is the wire `errorCode` (a DH-9xx code, or an
 * 8xx Data API code for market-data endpoints), so it is stable for clients to branch on.
 */
export type DhCode =
  | 'DH-901'
  | 'DH-902'
  | 'DH-903'
  | 'DH-904'
  | 'DH-905'
  | 'DH-906'
  | 'DH-907'
  | 'DH-908'
  | 'DH-910';

/** Data API codes (beyond-the-spec.md), answered by market-data endpoints as `errorCode: "813"`. */
export type DataCode = '800' | '804' | '805' | '806' | '810' | '811' | '812' | '813' | '814';

const ERROR_TYPES: Record<DhCode, string> = {
  'DH-901': 'Invalid_Authentication',
  'DH-902': 'Invalid_Access',
  'DH-903': 'User_Account',
  'DH-904': 'Rate_Limit',
  'DH-905': 'Input_Exception',
  'DH-906': 'Order_Error',
  'DH-907': 'Data_Error',
  'DH-908': 'Internal_Server_Error',
  'DH-910': 'Others',
};

export interface ErrorBody {
  errorType: string;
  errorCode: string;
  errorMessage: string;
}

/** The one error base of the REST simulator; thrown from handlers and rendered by the error handler. */
export class SimRestError extends Error {
  readonly code: DhCode | DataCode;
  readonly status: number;
  readonly errorType: string;
  readonly retryable: boolean;
  constructor(
    code: DhCode | DataCode,
    status: number,
    message: string,
    options: { cause?: unknown; retryable?: boolean; errorType?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'SimRestError';
    this.code = code;
    this.status = status;
    this.errorType =
      options.errorType ?? (code.startsWith('DH-') ? ERROR_TYPES[code as DhCode] : 'Data_Error');
    this.retryable = options.retryable ?? (code === 'DH-904' || code === 'DH-908');
  }

  toBody(): ErrorBody {
    return { errorType: this.errorType, errorCode: this.code, errorMessage: this.message };
  }
}

export const authError = (message: string): SimRestError => new SimRestError('DH-901', 401, message);
export const inputError = (message: string): SimRestError => new SimRestError('DH-905', 400, message);
export const orderError = (message: string, status = 400): SimRestError =>
  new SimRestError('DH-906', status, message);
export const rateError = (message: string): SimRestError => new SimRestError('DH-904', 429, message);
export const dataError = (code: DataCode, message: string): SimRestError =>
  new SimRestError(code, 400, message);
export const notFoundError = (message: string): SimRestError => new SimRestError('DH-905', 404, message);
