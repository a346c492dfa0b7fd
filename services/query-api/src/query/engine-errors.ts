/**
 * What a caller learns when ClickHouse fails their query: a stable code and a message written here,
 * never the engine's own text. The engine's messages quote values (a conversion error quotes the
 * string it could not parse, so `toUInt8(<a file's contents>)` once returned the file, 1,400 bytes
 * at a time), so nothing of them is passed on: the caller gets the error's number, its name taken
 * from our own table by that number (never from the text, whose tail a value could imitate), a
 * description of that kind of error, and for a syntax error the position. The text itself goes to
 * the log only, with every quoted value replaced by its length (`scrubEngineText`).
 */

/** An engine failure as the caller may see it. */
export interface EngineFailure {
  /** ClickHouse's error number, when the text began with one. */
  code: number | undefined;
  /** The error's name from ENGINE_ERRORS, or undefined for a number not listed there. */
  name: string | undefined;
  /** For syntax errors: the character position the parser stopped at. */
  position: number | undefined;
}

/** ClickHouse error numbers callers meet, their names, and what each means in our words. */
const ENGINE_ERRORS: ReadonlyMap<number, { name: string; says: string }> = new Map([
  [6, { name: 'CANNOT_PARSE_TEXT', says: 'a value could not be converted to the type asked for' }],
  [
    27,
    { name: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', says: 'a value could not be read as the type asked for' },
  ],
  [38, { name: 'CANNOT_PARSE_DATE', says: 'a value could not be read as a date' }],
  [41, { name: 'CANNOT_PARSE_DATETIME', says: 'a value could not be read as a date and time' }],
  [
    42,
    {
      name: 'NUMBER_OF_ARGUMENTS_DOESNT_MATCH',
      says: 'a function was called with the wrong number of arguments',
    },
  ],
  [
    43,
    {
      name: 'ILLEGAL_TYPE_OF_ARGUMENT',
      says: 'a function was called with an argument of a type it does not take',
    },
  ],
  [44, { name: 'ILLEGAL_COLUMN', says: 'a function was called with a column it does not take' }],
  [46, { name: 'UNKNOWN_FUNCTION', says: 'the query calls a function ClickHouse does not know' }],
  [47, { name: 'UNKNOWN_IDENTIFIER', says: 'a name in the query is not a column or alias in its scope' }],
  [48, { name: 'NOT_IMPLEMENTED', says: 'ClickHouse does not implement this combination' }],
  [53, { name: 'TYPE_MISMATCH', says: 'two values of incompatible types meet' }],
  [60, { name: 'UNKNOWN_TABLE', says: 'the query names a table that does not exist' }],
  [62, { name: 'SYNTAX_ERROR', says: 'syntax error' }],
  [69, { name: 'ARGUMENT_OUT_OF_BOUND', says: 'an argument is out of its allowed range' }],
  [70, { name: 'CANNOT_CONVERT_TYPE', says: 'a value cannot be converted to the type asked for' }],
  [72, { name: 'CANNOT_PARSE_NUMBER', says: 'a value could not be read as a number' }],
  [81, { name: 'UNKNOWN_DATABASE', says: 'the query names a database that does not exist' }],
  [107, { name: 'FILE_DOESNT_EXIST', says: 'the query reads outside the market-data tables' }],
  [117, { name: 'INCORRECT_DATA', says: 'a value is not valid data of the type asked for' }],
  [130, { name: 'CANNOT_READ_ARRAY_FROM_TEXT', says: 'a value could not be read as an array' }],
  [131, { name: 'TOO_LARGE_STRING_SIZE', says: 'a string is longer than its fixed size' }],
  [153, { name: 'ILLEGAL_DIVISION', says: 'integer division by zero' }],
  [158, { name: 'TOO_MANY_ROWS', says: 'the query reads or returns more rows than its limit' }],
  [159, { name: 'TIMEOUT_EXCEEDED', says: 'the query ran past its time limit' }],
  [160, { name: 'TOO_SLOW', says: 'the query would run past its time limit' }],
  [164, { name: 'READONLY', says: 'the query tries to change something; callers are read-only' }],
  [179, { name: 'MULTIPLE_EXPRESSIONS_FOR_ALIAS', says: 'one alias names two different expressions' }],
  [184, { name: 'ILLEGAL_AGGREGATION', says: 'an aggregate function is used where it cannot be' }],
  [
    190,
    {
      name: 'SIZES_OF_ARRAYS_DONT_MATCH',
      says: 'arrays of different lengths are combined element by element',
    },
  ],
  [215, { name: 'NOT_AN_AGGREGATE', says: 'a column is neither aggregated nor in GROUP BY' }],
  [241, { name: 'MEMORY_LIMIT_EXCEEDED', says: 'the query needed more memory than its limit' }],
  [307, { name: 'TOO_MANY_BYTES', says: 'the query reads more bytes than its limit' }],
  [376, { name: 'CANNOT_PARSE_UUID', says: 'a value could not be read as a UUID' }],
  [386, { name: 'NO_COMMON_TYPE', says: 'values of types with no common type are combined' }],
  [394, { name: 'QUERY_WAS_CANCELLED', says: 'the query was cancelled' }],
  [395, { name: 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO', says: 'throwIf raised its error' }],
  [396, { name: 'TOO_MANY_ROWS_OR_BYTES', says: 'the result is larger than its limit' }],
  [427, { name: 'CANNOT_COMPILE_REGEXP', says: 'a regular expression could not be compiled' }],
  [452, { name: 'SETTING_CONSTRAINT_VIOLATION', says: 'the query asks for a setting it may not change' }],
  [456, { name: 'UNKNOWN_QUERY_PARAMETER', says: 'a {name:Type} placeholder has no value in params' }],
  [467, { name: 'CANNOT_PARSE_BOOL', says: 'a value could not be read as a boolean' }],
  [497, { name: 'ACCESS_DENIED', says: 'the query reaches something callers may not read' }],
  [675, { name: 'CANNOT_PARSE_IPV4', says: 'a value could not be read as an IPv4 address' }],
  [676, { name: 'CANNOT_PARSE_IPV6', says: 'a value could not be read as an IPv6 address' }],
  [691, { name: 'UNKNOWN_ELEMENT_OF_ENUM', says: 'a value is not an element of the enum' }],
]);

/** The engine's error name by number, from our table only. */
export function engineErrorName(code: number): string | undefined {
  return ENGINE_ERRORS.get(code)?.name;
}

const CODE = /^(?:[^\n]*?)Code: (\d{1,4})\./;
const POSITION = /failed at position (\d{1,9})/;

function textOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : '';
}

/** Reads the number (and a syntax error's position) of an engine error; nothing else of its text. */
export function engineFailureOf(error: unknown): EngineFailure {
  const text = textOf(error);
  const property = (error as { code?: unknown } | null)?.code;
  const fromProperty =
    typeof property === 'string' && /^\d{1,4}$/.test(property) ? Number(property) : undefined;
  const fromText = CODE.exec(text)?.[1];
  const code = fromProperty ?? (fromText === undefined ? undefined : Number(fromText));
  const name = code === undefined ? undefined : engineErrorName(code);
  const position = code === 62 ? POSITION.exec(text)?.[1] : undefined;
  return { code, name, position: position === undefined ? undefined : Number(position) };
}

/** The caller's message for an engine failure: our words, the number, the name, a position. */
export function callerMessage(failure: EngineFailure): string {
  const known = failure.code === undefined ? undefined : ENGINE_ERRORS.get(failure.code);
  const where = failure.position === undefined ? '' : ` at position ${failure.position}`;
  const id = failure.code === undefined ? '' : ` (${known ? `${known.name}, ` : ''}code ${failure.code})`;
  return `ClickHouse refused the query: ${known?.says ?? 'the query failed in the engine'}${where}${id}`;
}

/**
 * The engine's text for the log: its number, then its message's first clause (up to the first
 * `: `, where ClickHouse appends the value it failed on and the statement), with every quoted part
 * ('...', "...", `...`) replaced by its length, cut to 300 characters. So a log line says what
 * failed and never carries what a query read.
 */
export function scrubEngineText(text: string): string {
  const code = CODE.exec(text)?.[1];
  const message = text.replace(/^[\s\S]*?DB::(?:Errno)?Exception: /, '');
  const quotedAway = message
    .replace(/'(?:[^'\\]|\\.)*'?/gs, (m) => `'<${m.length} chars>'`)
    .replace(/"(?:[^"\\]|\\.)*"?/gs, (m) => `"<${m.length} chars>"`)
    .replace(/`(?:[^`\\]|\\.)*`?/gs, (m) => `\`<${m.length} chars>\``);
  const clause = quotedAway.split(': ', 1)[0] ?? '';
  return `${code === undefined ? '' : `Code: ${code}. `}${clause}`.slice(0, 300);
}

/**
 * The engine error kept as the cause of a QUERY_FAILED or STORE_UNAVAILABLE: its number and name as
 * properties (the ClickHouse endpoint answers with them). Its message: for a caller's statement only
 * the number, the name and our description (a value can stand unquoted before the first colon, as in
 * `Cannot parse uuid <value>: ...`); for the API's own statements the scrubbed first clause, which
 * the operator needs and which holds no caller's value. So no log or body that prints the cause
 * shows a value a caller's query read.
 */
export class ScrubbedEngineError extends Error {
  override readonly name = 'ScrubbedEngineError';
  readonly failure: EngineFailure;
  constructor(original: unknown, origin: 'caller' | 'internal') {
    const failure = engineFailureOf(original);
    super(origin === 'caller' ? callerMessage(failure) : scrubEngineText(textOf(original)));
    this.failure = failure;
  }
}
