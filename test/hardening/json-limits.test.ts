import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLimitProblem, MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_JSON_STRING_LENGTH } from '../../src/http/json-limits.js';

/** The structural limits checked on every JSON body before any schema (src/http/json-limits.ts). */

const check = (text: string) => {
  JSON.parse(text); // only texts JSON.parse accepted reach the check
  const error = jsonLimitProblem(text);
  return error && { code: error.code, attr: error.errors[0]?.attr ?? null };
};

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

describe('jsonLimitProblem', () => {
  it('accepts the example-like bodies', () => {
    for (const text of ['{}', '[]', '{"a":[1,2,{"b":"c"}],"d":null,"e":true,"f":false}', '"x"', '12', '-0', '[1E2, 35.20, 0.30000000000000004, 5e-324, 1.5e-7]']) {
      expect(check(text), text).toBeNull();
    }
  });

  it(`nesting: ${MAX_JSON_DEPTH} levels pass, one more is nesting_too_deep at the path where it starts`, () => {
    expect(check(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(check(nested(MAX_JSON_DEPTH + 1))).toEqual({ code: 'nesting_too_deep', attr: Array(MAX_JSON_DEPTH).fill('0').join('.') });
    expect(check(`{"a":{"b":${nested(MAX_JSON_DEPTH)}}}`)?.code).toBe('nesting_too_deep');
    // Far deeper than any call stack: refused without recursion.
    expect(check(nested(200_000))?.code).toBe('nesting_too_deep');
  });

  it(`arrays: ${MAX_JSON_ARRAY_ITEMS} items pass, one more is array_too_long naming the array`, () => {
    const items = (n: number) => `[${Array(n).fill('0').join(',')}]`;
    expect(check(`{"ids":${items(MAX_JSON_ARRAY_ITEMS)}}`)).toBeNull();
    expect(check(`{"ids":${items(MAX_JSON_ARRAY_ITEMS + 1)}}`)).toEqual({ code: 'array_too_long', attr: 'ids' });
    expect(check(`{"a":[{"ids":${items(MAX_JSON_ARRAY_ITEMS + 1)}}]}`)).toEqual({ code: 'array_too_long', attr: 'a.0.ids' });
  });

  it('strings and keys longer than the limit are string_too_long', () => {
    const long = 'x'.repeat(MAX_JSON_STRING_LENGTH + 1);
    expect(check(`{"a":"${'x'.repeat(MAX_JSON_STRING_LENGTH)}"}`)).toBeNull();
    expect(check(`{"a":["ok","${long}"]}`)).toEqual({ code: 'string_too_long', attr: 'a.1' });
    expect(check(`{"${long}":1}`)?.code).toBe('string_too_long');
  });

  it('numbers a double cannot hold: out of range, or read as another value', () => {
    expect(check('{"amount":1e400}')).toEqual({ code: 'number_out_of_range', attr: 'amount' });
    expect(check('[-1e400]')).toEqual({ code: 'number_out_of_range', attr: '0' });
    expect(check('{"a":[1,9007199254740993]}')).toEqual({ code: 'number_precision_lost', attr: 'a.1' });
    expect(check('{"p":0.1000000000000000001}')?.code).toBe('number_precision_lost');
    expect(check('{"p":1234567890.1234567891}')?.code).toBe('number_precision_lost');
    expect(check('{"p":1e-400}')?.code).toBe('number_precision_lost');
    expect(check('{"p":9007199254740992}')).toBeNull();
    expect(check('{"p":0e999999}')).toBeNull();
  });

  it('lone surrogates in strings and keys are invalid_unicode; pairs are fine', () => {
    expect(check('{"a":"\\ud83d\\ude00"}')).toBeNull();
    expect(check('{"a":"x\\ud800"}')).toEqual({ code: 'invalid_unicode', attr: 'a' });
    expect(check('{"a":"\\udc00x"}')?.code).toBe('invalid_unicode');
    expect(check('{"\\ud800":1}')?.code).toBe('invalid_unicode');
  });

  it('U+0000 in a string or key is invalid_unicode (PostgreSQL cannot store it; every store answers the same)', () => {
    expect(check('{"a":"x\\u0000y"}')).toEqual({ code: 'invalid_unicode', attr: 'a' });
    expect(check('{"b":["\\u0000"]}')).toEqual({ code: 'invalid_unicode', attr: 'b.0' });
    expect(check('{"\\u0000":1}')?.code).toBe('invalid_unicode');
    expect(check('{"a":"\\u0001 \\\\u0000 is text"}')).toBeNull();
  });

  it('keys are read decoded: escapes and quotes inside keys and strings do not confuse the path', () => {
    expect(check('{"a\\"b":{"c":1e400}}')).toEqual({ code: 'number_out_of_range', attr: 'a"b.c' });
    expect(check('{"s":"[[[{\\"","t":[1e999]}')).toEqual({ code: 'number_out_of_range', attr: 't.0' });
  });

  it('for any key and string made of quotes, backslashes and escapes, the path names the decoded key', () => {
    const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '\\"', 'a', '/', '\n', '\u00e9', '[', '{', ','), maxLength: 12 });
    fc.assert(
      fc.property(tricky, tricky, (key, before) => {
        const text = `{"s":${JSON.stringify(before)},${JSON.stringify(key)}:[${JSON.stringify(before)},1e400]}`;
        expect(check(text)).toEqual({ code: 'number_out_of_range', attr: `${key}.1` });
      }),
      { numRuns: 500 },
    );
  });

  it('for any JSON value: no exception, and a value within the limits built from doubles passes', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        const text = JSON.stringify(value);
        const result = check(text);
        // fc.jsonValue holds finite doubles written by JSON.stringify: always exact, and well-formed strings.
        expect(result).toBeNull();
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (raw) => {
        let ok = true;
        try {
          JSON.parse(raw);
        } catch {
          ok = false;
        }
        if (ok) jsonLimitProblem(raw);
      }),
      { numRuns: 500 },
    );
  });
});
