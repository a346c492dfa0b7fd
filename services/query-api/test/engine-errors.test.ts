/** What a caller and a log may learn of an engine error (src/query/engine-errors.ts). */
import { describe, expect, it } from 'vitest';
import {
  callerMessage,
  engineFailureOf,
  ScrubbedEngineError,
  scrubEngineText,
} from '../src/query/engine-errors.js';

const SECRET = 'fpk_secretkey_0123456789';

describe('engine errors', () => {
  it('takes the number from the text and the name from our table, never from the text', () => {
    // A value that imitates the tail ClickHouse puts its error name in.
    const text = `Code: 6. DB::Exception: Cannot parse string '${SECRET} (ACCESS_DENIED)' as UInt8: In scope SELECT 1. (CANNOT_PARSE_TEXT)`;
    const failure = engineFailureOf(new Error(text));
    expect(failure).toEqual({ code: 6, name: 'CANNOT_PARSE_TEXT', position: undefined });
    expect(callerMessage(failure)).toBe(
      'ClickHouse refused the query: a value could not be converted to the type asked for (CANNOT_PARSE_TEXT, code 6)',
    );
  });

  it('reads a syntax error position and nothing else of it', () => {
    const failure = engineFailureOf(
      new Error(
        "Code: 62. DB::Exception: Syntax error: failed at position 12 ('FROM'): FROM x. Expected one of",
      ),
    );
    expect(failure).toEqual({ code: 62, name: 'SYNTAX_ERROR', position: 12 });
    expect(callerMessage(failure)).toBe(
      'ClickHouse refused the query: syntax error at position 12 (SYNTAX_ERROR, code 62)',
    );
  });

  it('prefers the code property the client parsed, and says so for numbers it does not know', () => {
    const error = Object.assign(new Error('whatever'), { code: '9999' });
    expect(callerMessage(engineFailureOf(error))).toBe(
      'ClickHouse refused the query: the query failed in the engine (code 9999)',
    );
  });

  it('scrubs quoted values and everything after the first clause for the log', () => {
    const text = `Code: 6. DB::Exception: Cannot parse string '${SECRET}' as UInt8: syntax error at begin of string: In scope SELECT toUInt8(file('/proc/self/environ')). (CANNOT_PARSE_TEXT)`;
    const scrubbed = scrubEngineText(text);
    expect(scrubbed).toBe(`Code: 6. Cannot parse string '<${SECRET.length + 2} chars>' as UInt8`);
    expect(scrubbed).not.toContain(SECRET);
  });

  it('keeps only our words in the cause of a caller statement (an unquoted value stands before the colon)', () => {
    const text = `Code: 376. DB::Exception: Cannot parse uuid ${SECRET}: Cannot parse UUID from String. (CANNOT_PARSE_UUID)`;
    const caller = new ScrubbedEngineError(new Error(text), 'caller');
    expect(caller.message).toBe(
      'ClickHouse refused the query: a value could not be read as a UUID (CANNOT_PARSE_UUID, code 376)',
    );
    expect(caller.failure.code).toBe(376);
    const internal = new ScrubbedEngineError(new Error(text), 'internal');
    expect(internal.message).toBe(`Code: 376. Cannot parse uuid ${SECRET}`);
  });
});
