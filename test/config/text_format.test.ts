// The protobuf text format reader, on a small schema that uses every kind of field.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTextProto } from '../../src/config/text_format.js';
import { ConfigError, enumField, Int64Value, mapField, message, positionOf, scalar, type MessageSchema } from '../../src/config/schema.js';

const Inner: MessageSchema = { name: 'test.Inner', fields: { n: scalar('int32'), s: scalar('string') } };
const Color = { name: 'test.Color', values: { COLOR_UNSPECIFIED: 0, RED: 1, GREEN: 2 } };
const Outer: MessageSchema = {
  name: 'test.Outer',
  fields: {
    s: scalar('string'),
    i32: scalar('int32'),
    i64: scalar('int64'),
    u32: scalar('uint32'),
    d: scalar('double'),
    b: scalar('bool'),
    color: enumField(Color),
    ints: scalar('int64', { repeated: true }),
    inner: message(Inner),
    inners: message(Inner, { repeated: true }),
    labels: mapField('string', 'int64'),
    wrapped: message(Int64Value),
    a: message(Inner),
    c: message(Inner),
  },
  oneofs: { choice: ['a', 'c'] },
};
const parse = (text: string) => parseTextProto(text, 'f.pbtxt', Outer);

describe('text format: syntax', () => {
  it('reads scalars of every type', () => {
    assert.deepEqual(parse('s: "x" i32: -5 i64: 0x10 u32: 017 d: 1.5e1 b: true color: GREEN'), {
      s: 'x',
      i32: -5,
      i64: 16,
      u32: 15,
      d: 15,
      b: true,
      color: 'GREEN',
    });
  });
  it('comments, `,` and `;` separators, `field: {}`, `field {}` and `field < >`', () => {
    const v = parse('# top\ns: "a", # trailing\ninner: { n: 1; s: "b" };\ninners { n: 2 }\ninners < n: 3 >\n');
    assert.deepEqual(v, { s: 'a', inner: { n: 1, s: 'b' }, inners: [{ n: 2 }, { n: 3 }] });
  });
  it('repeated fields as repeated entries, as [lists], and lists of messages', () => {
    assert.deepEqual(parse('ints: 1 ints: 2 ints: [3, 4] ints: []').ints, [1, 2, 3, 4]);
    assert.deepEqual(parse('ints: []').ints, []);
    assert.deepEqual(parse('inners: [{n: 1}, <n: 2>]').inners, [{ n: 1 }, { n: 2 }]);
  });
  it('map fields as repeated { key value } entries, defaults for missing key/value', () => {
    assert.deepEqual(parse("labels { key: 'stable' value: 1 } labels: { key: \"canary\", value: 2 } labels { key: 'zero' }").labels, {
      stable: 1,
      canary: 2,
      zero: 0,
    });
  });
  it('strings: single and double quotes, C escapes, UTF-8 octal bytes, adjacent concatenation', () => {
    assert.equal(parse(`s: 'it\\'s' "\\"q\\"\\n\\t\\\\"`).s, 'it\'s"q"\n\t\\');
    assert.equal(parse('s: "\\303\\251\\x41\\u00e9\\101"').s, 'éAéA');
    assert.equal(parse("s: 'a' 'b'\n  \"c\"").s, 'abc');
  });
  it('bools: true/false/t/f/True/False/1/0', () => {
    for (const [w, v] of [
      ['true', true],
      ['t', true],
      ['True', true],
      ['1', true],
      ['false', false],
      ['f', false],
      ['False', false],
      ['0', false],
    ] as const) {
      assert.equal(parse(`b: ${w}`).b, v, w);
    }
  });
  it('floats: ints, exponents, f suffix, inf, -inf, nan; enums by number', () => {
    assert.equal(parse('d: 3').d, 3);
    assert.equal(parse('d: .5f').d, 0.5);
    assert.equal(parse('d: inf').d, Infinity);
    assert.equal(parse('d: -inf').d, -Infinity);
    assert.ok(Number.isNaN(parse('d: nan').d));
    assert.equal(parse('color: 1').color, 'RED');
  });
  it('wrapper messages are written as field { value: N }', () => {
    assert.deepEqual(parse('wrapped { value: 128 }').wrapped, { value: 128 });
  });
  it('remembers where each field was written', () => {
    const v = parse('s: "x"\n  inners { n: 1 }\n  inners { n: 2 }');
    assert.deepEqual(positionOf(v, 's'), { line: 1, col: 1 });
    assert.deepEqual(positionOf(v, 'inners', 1), { line: 3, col: 3 });
    assert.deepEqual(positionOf((v.inners as object[])[1], 'n'), { line: 3, col: 12 });
  });
  it('an empty file is an empty message', () => {
    assert.deepEqual(parse(''), {});
    assert.deepEqual(parse('# only a comment\n'), {});
  });
});

// Each malformed input with the position and field the error must name.
const BAD: Array<[string, string, number, number, string | undefined, RegExp]> = [
  ['unknown field', 's: "a"\nbogus: 1', 2, 1, 'bogus', /Message type "test.Outer" has no field named "bogus"\./],
  ['unknown nested field', 'inner {\n  n: 1\n  m: 2 }', 3, 3, 'm', /Message type "test.Inner" has no field named "m"\./],
  ['missing closing brace', 'inner {\n  n: 1\n', 3, 1, 'inner', /Expected "}" to close field "inner" opened at 1:7, found end of file\./],
  ['mismatched bracket', 'inner < n: 1 }', 1, 14, undefined, /Expected a field name, found "}"\./],
  ['stray closing brace', 's: "a" }', 1, 8, undefined, /Expected a field name, found "}"/],
  ['missing colon before scalar', 's "a"', 1, 3, 's', /Expected ":" after field "s", found "a"\./],
  ['message field given a scalar', 'inner: 5', 1, 8, 'inner', /Expected "\{" to open message field "inner", found "5"\./],
  ['scalar field given a message', 's: { }', 1, 4, 's', /Expected a value for field "s", found "\{"\./],
  ['string for an int', 'i32: "5"', 1, 6, 'i32', /Expected integer for field "i32", got: "5"/],
  ['float for an int', 'i32: 1.5', 1, 6, 'i32', /Expected integer for field "i32", got: 1\.5/],
  ['int32 out of range', 'i32: 2147483648', 1, 6, 'i32', /Integer out of range \(2147483648\) for field "i32" \(int32\)/],
  ['negative uint32', 'u32: -1', 1, 6, 'u32', /Integer out of range \(-1\) for field "u32" \(uint32\)/],
  ['int64 beyond 2^53', 'i64: 9007199254740993', 1, 6, 'i64', /Integer out of range \(9007199254740993\) for field "i64".*2\^53-1/],
  ['bad number', 'i32: 12ab', 1, 6, undefined, /Invalid number: 12a/],
  ['bad bool', 'b: maybe', 1, 4, 'b', /Invalid value for boolean field "b"\. Value: "maybe"\./],
  ['unknown enum value', 'color: BLUE', 1, 8, 'color', /Unknown enumeration value of "BLUE" for field "color"\./],
  ['identifier for a string', 's: abc', 1, 4, 's', /Expected string for field "s", got: abc/],
  ['non-repeated twice', 's: "a"\ns: "b"', 2, 1, 's', /Non-repeated field "s" is specified multiple times\./],
  ['oneof twice', 'a {} c {}', 1, 6, 'c', /Field "c" is specified along with field "a", another member of oneof "choice"\./],
  ['list for a non-repeated field', 's: ["a"]', 1, 4, 's', /Field "s" is not repeated; a \[list\] is not allowed\./],
  ['unterminated list', 'ints: [1, 2', 1, 12, 'ints', /Expected "," or "]" in the list of field "ints", found end of file\./],
  ['unterminated string', 's: "abc\n', 1, 4, undefined, /String literal is not terminated on its line\./],
  ['bad escape', 's: "a\\qb"', 1, 6, undefined, /Invalid escape sequence in string literal: \\q/],
  [
    'duplicate map key',
    "labels { key: 'a' value: 1 }\nlabels { key: 'a' value: 2 }",
    2,
    10,
    'labels',
    /Map field "labels" has key "a" more than once\./,
  ],
  ['unexpected character', 's: "a" @', 1, 8, undefined, /Unexpected character '@'/],
  ['missing value at end', 's:', 1, 3, 's', /Expected a value for field "s", found end of file\./],
];

describe('text format: errors carry file:line:col and the field', () => {
  for (const [what, text, line, col, field, re] of BAD) {
    it(what, () => {
      assert.throws(
        () => parse(text),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, String(e));
          assert.ok(e.message.startsWith(`f.pbtxt:${line}:${col}: `), `${e.message} (expected ${line}:${col})`);
          assert.match(e.message, re);
          assert.equal(e.line, line);
          assert.equal(e.col, col);
          assert.equal(e.file, 'f.pbtxt');
          if (field) assert.equal(e.field, field);
          return true;
        },
      );
    });
  }
});
