// The request-body parser against RapidJSON 1.1.0 as TF Serving configures it (iterative,
// NaN/Infinity accepted, stop when done): values, the int-vs-float record, error texts with
// byte offsets, and tfgate's limits. Its speed next to JSON.parse: npm run bench:json.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  floatElements,
  floatMarks,
  isFloatMember,
  numberIsFloat,
  parseJsonBody,
  parseJsonBodyYielding,
  type JsonValue,
} from '../../src/rest/json_parse.js';
import { Code, ServingError } from '../../src/errors/status.js';

const LIMITS = { maxDepth: 64, maxElements: 1_000_000 };
const parse = (text: string, limits = LIMITS) => parseJsonBody(text, limits);

/** Asserts a ServingError INVALID_ARGUMENT with exactly `message`. */
function throwsExactly(f: () => unknown, message: string) {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ServingError, String(e));
    assert.equal(e.code, Code.INVALID_ARGUMENT);
    assert.equal(e.message, message);
    return true;
  });
}

describe('parseJsonBody: values', () => {
  const CASES: Array<[string, JsonValue]> = [
    ['{"a": 1, "b": [true, false, null], "c": "x"}', { a: 1, b: [true, false, null], c: 'x' }],
    ['  [1, -2, 0, -0, 1.5, -2.25e2, 1E3, 0.001]  ', [1, -2, 0, 0, 1.5, -225, 1000, 0.001]],
    // kParseNanAndInfFlag: NaN, Inf, Infinity, with a sign.
    ['[NaN, -NaN, Infinity, -Infinity, Inf, -Inf]', [NaN, NaN, Infinity, -Infinity, Infinity, -Infinity]],
    // Integer literals past 2^53 that fit int64 / uint64 stay exact, as bigints.
    ['[9007199254740993, -9223372036854775808, 18446744073709551615]', [9007199254740993n, -9223372036854775808n, 18446744073709551615n]],
    // Past uint64: a double, as RapidJSON does.
    ['[18446744073709551616]', [18446744073709551616]],
    ['[9007199254740991, -9007199254740991, 9007199254740992]', [9007199254740991, -9007199254740991, 9007199254740992n]],
    // Escapes, surrogate pairs, and raw non-ASCII.
    ['"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00é"', 'a"b\\c/d\b\f\n\r\t\u00e9\u{1f600}é'],
    // Stop when done: whatever follows the first value is not read.
    ['{"instances": [1]} trailing } garbage', { instances: [1] }],
    ['[1]\u0000[', [1]],
    // RapidJSON keeps duplicate members and finds the first.
    ['{"a": 1, "a": 2}', { a: 1 }],
    ['[[], {}, [[]], {"a": {}}]', [[], {}, [[]], { a: {} }]],
  ];
  for (const [text, want] of CASES) {
    it(JSON.stringify(text), () => assert.deepStrictEqual(parse(text), want));
  }

  it('a "__proto__" member is an ordinary own member', () => {
    const v = parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__']);
  });

  it("a zero-length body is TF Serving's own message, whitespace only is RapidJSON's", () => {
    throwsExactly(() => parse(''), 'JSON Parse error: The document is empty');
    throwsExactly(() => parse(' \n'), 'JSON Parse error: The document is empty. at offset: 2');
  });
});

describe('parseJsonBody: int vs float record', () => {
  it('marks integral numbers written as floats, by index in arrays and by key in objects', () => {
    const v = parse('{"i": 1, "f": 1.0, "e": 2e3, "h": 1.5, "z": -0.0, "list": [1, 1.0, 2, 3e0, NaN, 18446744073709551616, 7]}') as Record<
      string,
      JsonValue
    >;
    const list = v.list as JsonValue[];
    assert.deepEqual(floatMarks(list), [1, 3, 5]);
    assert.deepEqual([...(floatMarks(v) as string[])].sort(), ['e', 'f', 'z']);
    assert.equal(isFloatMember(v, 'i'), false);
    assert.equal(isFloatMember(v, 'f'), true);
    assert.equal(isFloatMember(list, 0), false);
    assert.equal(isFloatMember(list, 3), true);
    // floatElements: the same answers, asked in order along the array.
    const floatAt = floatElements(list)!;
    assert.deepEqual(
      list.map((_, i) => floatAt(i)),
      [false, true, false, true, false, true, false],
    );
    assert.equal(floatElements(parse('[1, 2.5, NaN]') as JsonValue[]), undefined);
    // numberIsFloat: RapidJSON's IsDouble.
    const kinds = list.map((x, i) => numberIsFloat(x as number, isFloatMember(list, i)));
    assert.deepEqual(kinds, [false, true, false, true, true, true, false]);
    assert.equal(numberIsFloat(1.5, false), true);
    assert.equal(numberIsFloat(9007199254740993n, false), false);
  });

  it('the record is invisible to JSON.stringify, Object.keys and deepEqual', () => {
    const v = parse('[1.0, 2]');
    assert.deepStrictEqual(v, [1, 2]);
    assert.equal(JSON.stringify(v), '[1,2]');
    assert.deepEqual(Object.keys(v as object), ['0', '1']);
    assert.deepEqual(floatMarks(v as object), [0]);
  });

  it('no record when nothing needs one', () => {
    assert.equal(floatMarks(parse('[1, 2.5, NaN]') as object), undefined);
  });
});

describe('parseJsonBody: RapidJSON errors, verbatim, with byte offsets', () => {
  const E = (text: string, offset: number) => `JSON Parse error: ${text} at offset: ${offset}`;
  const CASES: Array<[string, string]> = [
    // From http_rest_api_handler_test.cc: "instances = [1, 2]" is "Invalid value".
    ['instances = [1, 2]', E('Invalid value.', 0)],
    [']', E('The document is empty.', 0)],
    ['[1 2]', E("Missing a comma or ']' after an array element.", 3)],
    ['[1,]', E('Invalid value.', 3)],
    ['[1,', E('Invalid value.', 3)],
    ['[', E('Invalid value.', 1)],
    ['[}', E('Invalid value.', 1)],
    ['{', E('Missing a name for object member.', 1)],
    ['{1: 2}', E('Missing a name for object member.', 1)],
    ['{"a":1,}', E('Missing a name for object member.', 7)],
    ['{"a"}', E('Missing a colon after a name of object member.', 4)],
    ['{"a":}', E('Invalid value.', 5)],
    ['{"a":1 "b":2}', E("Missing a comma or '}' after an object member.", 7)],
    ['{"instances": [1.0', E("Missing a comma or ']' after an array element.", 18)],
    ['[01]', E("Missing a comma or ']' after an array element.", 2)],
    ['[-]', E('Invalid value.', 2)],
    ['[+1]', E('Invalid value.', 1)],
    ['[.5]', E('Invalid value.', 1)],
    ['[1.]', E('Miss fraction part in number.', 3)],
    ['[1e]', E('Miss exponent in number.', 3)],
    ['[1e+]', E('Miss exponent in number.', 4)],
    ['[1e309]', E('Number too big to be stored in double.', 1)],
    [`[${'9'.repeat(310)}]`, E('Number too big to be stored in double.', 1)],
    ['[Nan]', E('Invalid value.', 3)],
    ['[nan]', E('Invalid value.', 2)],
    ['[Infinit]', E('Invalid value.', 8)],
    ['[tru]', E('Invalid value.', 4)],
    ['[nul', E('Invalid value.', 4)],
    ['"abc', E('Missing a closing quotation mark in string.', 4)],
    ['"ab\u0000c"', E('Missing a closing quotation mark in string.', 3)],
    ['"a\tb"', E('Invalid escape character in string.', 2)],
    ['"a\\x"', E('Invalid escape character in string.', 2)],
    ['"a\\u12G4"', E('Incorrect hex digit after \\u escape in string.', 2)],
    ['"\\ud800"', E('The surrogate pair in string is invalid.', 1)],
    ['"\\ud800\\u0041"', E('The surrogate pair in string is invalid.', 1)],
    // Offsets count UTF-8 bytes: "é" is two.
    ['{"é": [1 }', E("Missing a comma or ']' after an array element.", 10)],
  ];
  for (const [text, message] of CASES) {
    it(JSON.stringify(text), () => throwsExactly(() => parse(text), message));
  }

  it('a large but representable exponent is accepted (RapidJSON counts the fraction digits)', () => {
    assert.deepStrictEqual(parse('[0.001e310, 1.0e308]'), [1e307, 1e308]);
  });
});

describe('parseJsonBody: limits', () => {
  it('nesting: the root container is depth 1; one level more than the limit is refused', () => {
    assert.deepStrictEqual(parse('[[[1]]]', { maxDepth: 3, maxElements: 100 }), [[[1]]]);
    throwsExactly(
      () => parse('[[[[1]]]]', { maxDepth: 3, maxElements: 100 }),
      'JSON nesting is deeper than the limit of 3 (--json_max_depth)',
    );
    throwsExactly(
      () => parse('{"a": {"b": {"c": {}}}}', { maxDepth: 3, maxElements: 100 }),
      'JSON nesting is deeper than the limit of 3 (--json_max_depth)',
    );
  });

  it('elements: list items and object members over the whole body', () => {
    const body = '{"a": [1, 2, 3], "b": {"c": 4}}'; // a, 1, 2, 3, b, c = 6
    assert.ok(parse(body, { maxDepth: 10, maxElements: 6 }));
    throwsExactly(() => parse(body, { maxDepth: 10, maxElements: 5 }), 'JSON has more than the limit of 5 elements (--json_max_elements)');
  });

  it('limits are checked while parsing: the error comes before a later syntax error', () => {
    throwsExactly(
      () => parse('[[[[1]]]] this is not JSON', { maxDepth: 2, maxElements: 100 }),
      'JSON nesting is deeper than the limit of 2 (--json_max_depth)',
    );
    throwsExactly(
      () => parse(`[${'1,'.repeat(50)} oops`, { maxDepth: 2, maxElements: 10 }),
      'JSON has more than the limit of 10 elements (--json_max_elements)',
    );
  });

  it('deep nesting within the limits needs no recursion (TF Serving: DeeplyNestedWellFormed)', () => {
    const text = `{"instances": [1], "nested": ${'['.repeat(500000)}${']'.repeat(500000)}}`;
    const v = parse(text, { maxDepth: 1_000_000, maxElements: 10_000_000 }) as Record<string, unknown>;
    assert.deepEqual(v.instances, [1]);
  });

  it('unread root members nest without a depth limit, are checked as JSON and left out; read ones keep the limit', () => {
    const limits = { maxDepth: 4, maxElements: 100, rootMembers: new Set(['instances', 'signature_name']) };
    const deep = (d: number) => `${'[{"k": '.repeat(d)}1${'}]'.repeat(d)}`;
    // 500 000 levels in a member nobody reads: parsed without being built (bounded memory).
    const text = `{"meta": ${deep(250_000)}, "instances": [[1.0, 2]], "shallow": {"a": [1]}}`;
    assert.deepStrictEqual({ ...(parse(text, limits) as object) }, { instances: [[1, 2]], shallow: { a: [1] } });
    assert.equal(isFloatMember((parse(text, limits) as { instances: number[][] }).instances[0], 0), true);
    // A member read by the API still has the limit, and so has any member without rootMembers.
    throwsExactly(() => parse(`{"instances": ${deep(3)}}`, limits), 'JSON nesting is deeper than the limit of 4 (--json_max_depth)');
    throwsExactly(
      () => parse(`{"meta": ${deep(3)}}`, { maxDepth: 4, maxElements: 100 }),
      'JSON nesting is deeper than the limit of 4 (--json_max_depth)',
    );
    // An array root has no members to leave out.
    throwsExactly(() => parse(`[${deep(3)}]`, limits), 'JSON nesting is deeper than the limit of 4 (--json_max_depth)');
  });

  it("an unread deep member that is not JSON fails with RapidJSON's text and offset", () => {
    const limits = { maxDepth: 2, maxElements: 100, rootMembers: new Set(['instances']) };
    const errorOf = (text: string, withLimits: typeof limits | typeof LIMITS) => {
      try {
        parse(text, withLimits);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    for (const bad of [
      '[[[1,]]]',
      '[[[1] 2]]',
      '[[{"a" 1}]]',
      '[[{"a": 1,}]]',
      '[[[1]]',
      '[[{1: 2}]]',
      '[[["x]]]',
      '[[[tru]]]',
      '[[[-]]]',
      '[[{"a": 1 "b": 2}]]',
    ]) {
      const text = `{"x": ${bad}, "instances": [1]}`;
      // The same text as the building parser gives, when no limit stops it first.
      assert.equal(errorOf(text, limits), errorOf(text, LIMITS), bad);
      assert.notEqual(errorOf(text, limits), 'no error', bad);
    }
  });

  it('a 1 MB body of floats parses whole', () => {
    const rows: number[][] = [];
    for (let len = 0; len < 1_000_000;) {
      const r = Array.from({ length: 28 }, (_, i) => ((i * 7919 + rows.length * 104729) % 1000003) / 1000003);
      rows.push(r);
      len += JSON.stringify(r).length + 2;
    }
    const body = JSON.stringify({ instances: rows });
    const big = { maxDepth: 64, maxElements: 1 << 24 };
    assert.deepEqual((parseJsonBody(body, big) as { instances: number[][] }).instances.length, rows.length);
  });
});

describe('parseJsonBodyYielding: the same parse in slices, and memory reported as it grows', () => {
  const outcome = async (p: () => JsonValue | Promise<JsonValue>): Promise<unknown> => {
    try {
      const v = await p();
      return { v, marks: v !== null && typeof v === 'object' ? floatMarks(v as object) : undefined };
    } catch (e) {
      return (e as Error).message;
    }
  };
  it('gives the same values, float records and errors as parseJsonBody, whatever the slice', async () => {
    const bodies = [
      '{"instances": [[1.0, 2], [3, 4.5]], "signature_name": "s"}',
      '{"a": [1, 2, 3e2], "b": {"c": [true, null, "x"]}}',
      '{"instances": [1, 2,]}',
      '[[[1]]] trailing',
      '{"x": [1, 2',
      '  ',
    ];
    for (const body of bodies) {
      const expected = await outcome(() => parseJsonBody(body, LIMITS));
      for (const slice of [1, 3, 7, 1000])
        assert.deepEqual(await outcome(() => parseJsonBodyYielding(body, LIMITS, slice)), expected, `${body} / ${slice}`);
    }
  });
  it('reports estimated growth to onGrowth, which can stop the parse', async () => {
    const body = `{"instances": [${new Array(100_000).fill('[1.5]').join(',')}]}`;
    let total = 0;
    await parseJsonBodyYielding(body, { ...LIMITS, onGrowth: (b) => (total += b) }, 4096);
    assert.ok(total >= 100_000 * 2 * 24, `reported ${total} bytes`);
    await assert.rejects(
      parseJsonBodyYielding(body, {
        ...LIMITS,
        onGrowth: (b) => {
          if (b > 0) throw new Error('budget full');
        },
      }),
      /budget full/,
    );
  });
});
