// BatchingParameters: TF Serving's defaults and checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config/schema.js';
import {
  cpuCount,
  defaultBatchingParameters,
  parseBatchingParametersText,
  resolveBatchingParameters,
} from '../../src/config/batching_parameters.js';
import { FIXTURES } from '../helpers/paths.js';

const parse = (text: string) => parseBatchingParametersText(text, 'batching.cfg');

describe('batching parameters', () => {
  it("batching_config.txt (serving_config.md's example)", () => {
    const p = parseBatchingParametersText(
      fs.readFileSync(path.join(FIXTURES, 'configs', 'batching_config.txt'), 'utf8'),
      'batching_config.txt',
    );
    assert.deepEqual(p, {
      max_batch_size: 128,
      batch_timeout_micros: 0,
      max_enqueued_batches: 1000000,
      num_batch_threads: 8,
      thread_pool_name: 'batch_threads',
      enable_large_batch_splitting: false,
      max_execution_batch_size: 128,
      allowed_batch_sizes: [],
      pad_variable_length_inputs: false,
    });
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.allowed_batch_sizes));
  });
  it("an empty file gives TF Serving's defaults", () => {
    assert.deepEqual(parse(''), {
      max_batch_size: 1000,
      batch_timeout_micros: 0,
      max_enqueued_batches: 10,
      num_batch_threads: cpuCount(),
      thread_pool_name: 'batch_threads',
      enable_large_batch_splitting: false,
      max_execution_batch_size: 1000,
      allowed_batch_sizes: [],
      pad_variable_length_inputs: false,
    });
    assert.deepEqual(defaultBatchingParameters(), parse(''));
  });
  it('every field, wrappers and plain ones', () => {
    const p = parse(`
      max_batch_size { value: 64 }
      batch_timeout_micros { value: 5000 }
      max_enqueued_batches { value: 4 }
      num_batch_threads { value: 2 }
      thread_pool_name { value: "pool" }
      allowed_batch_sizes: [8, 16]
      allowed_batch_sizes: 64
      pad_variable_length_inputs: true
      enable_large_batch_splitting { value: true }
      max_execution_batch_size { value: 32 }`);
    assert.deepEqual(p, {
      max_batch_size: 64,
      batch_timeout_micros: 5000,
      max_enqueued_batches: 4,
      num_batch_threads: 2,
      thread_pool_name: 'pool',
      enable_large_batch_splitting: true,
      max_execution_batch_size: 32,
      allowed_batch_sizes: [8, 16, 64],
      pad_variable_length_inputs: true,
    });
  });
  it('max_execution_batch_size is the effective one: max_batch_size unless large-batch splitting', () => {
    assert.equal(parse('max_batch_size { value: 64 } max_execution_batch_size { value: 8 }').max_execution_batch_size, 64);
    assert.equal(parse('max_batch_size { value: 64 } enable_large_batch_splitting { value: true }').max_execution_batch_size, 64);
  });
  it('max_enqueued_batches 0 becomes 1 without large-batch splitting (SharedBatchScheduler::AddQueue)', () => {
    assert.equal(parse('max_enqueued_batches { value: 0 }').max_enqueued_batches, 1);
  });
  it('a wrapper written without its value holds the wrapped default (0)', () => {
    assert.throws(
      () => parse('max_batch_size {}'),
      (e: Error) => /max_batch_size must be positive; was 0/.test(e.message),
    );
  });

  const BAD: Array<[string, string, number, number, RegExp, string]> = [
    [
      'max_batch_size 0',
      'max_batch_size { value: 0 }',
      1,
      18,
      /^batching\.cfg:1:18: max_batch_size must be positive; was 0$/,
      'max_batch_size',
    ],
    [
      'negative batch_timeout_micros',
      '\nbatch_timeout_micros { value: -1 }',
      2,
      24,
      /batch_timeout_micros must be non-negative; was -1$/,
      'batch_timeout_micros',
    ],
    [
      'max_enqueued_batches 0 with splitting',
      'enable_large_batch_splitting { value: true }\nmax_enqueued_batches { value: 0 }',
      2,
      24,
      /max_enqueued_batches must be positive; was 0$/,
      'max_enqueued_batches',
    ],
    ['num_batch_threads 0', 'num_batch_threads { value: 0 }', 1, 21, /num_batch_threads must be positive; was 0$/, 'num_batch_threads'],
    [
      'max_execution_batch_size above max_batch_size',
      'max_batch_size { value: 8 } enable_large_batch_splitting { value: true } max_execution_batch_size { value: 16 }',
      1,
      101,
      /When enable_large_batch_splitting is true, max_batch_size must be greater than or equal to max_execution_batch_size; max_batch_size was 8, max_execution_batch_size was 16$/,
      'max_execution_batch_size',
    ],
    [
      'last allowed size not max_batch_size',
      'max_batch_size { value: 32 }\nallowed_batch_sizes: [8, 16]',
      2,
      26,
      /Last entry in allowed_batch_sizes must match max_batch_size; last entry was 16; expected 32$/,
      'allowed_batch_sizes',
    ],
    [
      'last allowed size vs default max_batch_size',
      'allowed_batch_sizes: 8',
      1,
      1,
      /last entry was 8; expected 1000$/,
      'allowed_batch_sizes',
    ],
    [
      'allowed sizes not increasing',
      'max_batch_size { value: 32 }\nallowed_batch_sizes: 16\nallowed_batch_sizes: 8\nallowed_batch_sizes: 32',
      3,
      1,
      /allowed_batch_sizes entries must be monotonically increasing$/,
      'allowed_batch_sizes',
    ],
    [
      'allowed size not positive',
      'max_batch_size { value: 32 }\nallowed_batch_sizes: [0, 32]',
      2,
      23,
      /allowed_batch_sizes entries must be positive; entry 0 was 0$/,
      'allowed_batch_sizes',
    ],
    [
      'plain value for a wrapper (text format)',
      'max_batch_size: 128',
      1,
      17,
      /Expected "\{" to open message field "max_batch_size", found "128"\./,
      'max_batch_size',
    ],
    [
      'unknown field',
      'max_batch: { value: 1 }',
      1,
      1,
      /Message type "tensorflow\.serving\.BatchingParameters" has no field named "max_batch"\./,
      'max_batch',
    ],
    [
      'bad bool',
      'pad_variable_length_inputs: yes',
      1,
      29,
      /Invalid value for boolean field "pad_variable_length_inputs"/,
      'pad_variable_length_inputs',
    ],
  ];
  for (const [what, text, line, col, re, field] of BAD) {
    it(`refuses: ${what}`, () => {
      assert.throws(
        () => parse(text),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, String(e));
          assert.ok(e.message.startsWith(`batching.cfg:${line}:${col}: `), `${e.message} (expected ${line}:${col})`);
          assert.match(e.message, re);
          assert.equal(e.field, field);
          return true;
        },
      );
    });
  }

  it('resolveBatchingParameters checks values built in code', () => {
    assert.equal(resolveBatchingParameters({ max_batch_size: 4, allowed_batch_sizes: [2, 4] }, 'yaml').max_batch_size, 4);
    assert.throws(
      () => resolveBatchingParameters({ num_batch_threads: 1.5 }, 'x'),
      (e: Error) => /^x: num_batch_threads must be an integer; was 1\.5$/.test(e.message),
    );
  });
});
