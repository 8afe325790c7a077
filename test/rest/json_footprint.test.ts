// The footprint counted from a body's text before it is parsed is what the parser's own
// estimate reaches once it has built everything (never less), so charging it first leaves the
// parser nothing to charge for the JSON it was counted from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chargeJsonParse, jsonFootprint } from '../../src/rest/json_footprint.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';

const LIMITS = { maxDepth: 100, maxElements: 1 << 24 };

function parserEstimate(text: string): number {
  let total = 0;
  parseJsonBody(text, { ...LIMITS, onGrowth: (b) => (total += b) });
  return total;
}

describe('JSON footprint', () => {
  const docs = [
    '{"instances": [[1], [2], [3]]}',
    '{"instances": [1.5, 2.5, -3e4, NaN]}',
    '{"inputs": {"tag": ["foo", "bar", ""], "signal": [[1, 2, 3], [3, 4, 1]], "scale": 0.5}}',
    '{"instances": [{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}]}',
    '{"instances": [[], [[]], {}, {"a": {}}]}',
    '{"signature_name": "a very long signature name indeed", "instances": ["short", "a string of more than thirteen characters"]}',
    `{"instances": [${Array.from({ length: 5000 }, (_, i) => `{"k${i}": [${i}, "v${i}"]}`).join(', ')}]}`,
    '  [1, [2, [3, [4]]]]  trailing text [[[[ is not counted',
  ];

  it("equals the parser's estimate of what it built", async () => {
    for (const text of docs) assert.equal(await jsonFootprint(text), parserEstimate(text), text.slice(0, 60));
  });

  it("is at least the parser's estimate when strings have escapes or keys repeat", async () => {
    for (const text of ['{"x": "a\\"b\\u00e9c", "x": [1, 2]}', '["\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n"]']) {
      assert.ok((await jsonFootprint(text)) >= parserEstimate(text), text);
    }
  });

  it('counts across slices as in one go', async () => {
    const text = `{"instances": [${'["abc", 1.5, {"k": "a string of twenty chars"}],'.repeat(2000)}[]]}`;
    assert.equal(await jsonFootprint(text, 1000), await jsonFootprint(text));
  });

  it("chargeJsonParse charges the footprint first; the parser's growth then charges nothing more", async () => {
    const text = docs[2];
    const charges: number[] = [];
    const onGrowth = await chargeJsonParse(text, (b) => charges.push(b));
    parseJsonBody(text, { ...LIMITS, onGrowth });
    assert.deepEqual(charges, [await jsonFootprint(text)]);
  });
});
