// The signature-loading pipeline every runtime goes through, on a stand-in engine whose
// signatures each do what a table says: prepare, refuse, hand off (EngineCannotRun), spoil
// the version. What a fourth engine supplies is exactly what FakeEngine implements.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code, ServingError } from '../../src/errors/status.js';
import type { LoadOptions, Runtime, Servable } from '../../src/runtimes/runtime.js';
import {
  EngineCannotRun,
  loadSignatures,
  type OpenedSignatures,
  type Refusal,
  type SignatureEngine,
} from '../../src/runtimes/signature_loading.js';
import { CompositeRuntime } from '../../src/runtimes/composite_runtime.js';
import type { TensorBundle } from '../../src/savedmodel/tensor_bundle/tensor_bundle_reader.js';
import { isError } from '../helpers/errors.js';

const DIR = '/models/m/1';
const TAGS = { tags: ['serve'] };

/** What preparing a signature does: succeed, or throw this. */
type Outcome = 'ok' | Error;

interface Journal {
  prepared: string[];
  disposed: string[][];
  released: number;
  opened: LoadOptions[];
}

const journal = (): Journal => ({ prepared: [], disposed: [], released: 0, opened: [] });

/** A servable of the signatures it was given; run answers their keys. */
function fakeServable(name: string, served: readonly string[], refused: ReadonlyMap<string, Refusal>, log: Journal): Servable {
  const spec = (key: string) => ({ key, methodName: '', inputs: {}, outputs: {}, defaults: {} });
  return {
    backend: name,
    engines: Object.fromEntries(served.map((k) => [k, { engine: name }])),
    signatures: Object.fromEntries([...served.map((k) => [k, spec(k)] as const), ...[...refused].map(([k, r]) => [k, r.spec] as const)]),
    signatureDefs: {},
    refusals: Object.fromEntries([...refused].map(([k, r]) => [k, r.error.message])),
    run: async (key) => ({ answeredBy: { dtype: 'string', shape: [], values: [new TextEncoder().encode(`${name}:${key}`)] } }),
    dispose: () => void log.disposed.push([...served]),
  };
}

class FakeEngine implements Runtime, SignatureEngine<OpenedSignatures, string> {
  constructor(
    readonly name: string,
    private readonly outcomes: Record<string, Outcome>,
    readonly log: Journal = journal(),
    private readonly checkpoint: () => void = () => {},
    private readonly openError?: Error,
    readonly servedBy?: string,
  ) {}

  load(dir: string, options: LoadOptions): Promise<Servable> {
    return loadSignatures(this, dir, options);
  }

  async open(_dir: string, options: LoadOptions): Promise<OpenedSignatures> {
    this.log.opened.push(options);
    if (this.openError) throw this.openError;
    const signatureDef = Object.fromEntries(
      ['__saved_model_init_op', ...Object.keys(this.outcomes)].map((k) => [k, { methodName: 'tensorflow/serving/predict' }]),
    );
    const variables = { verifyChecksums: this.checkpoint } as unknown as TensorBundle;
    return { metaGraph: { signatureDef }, variables, release: () => void this.log.released++ };
  }

  prepare(_version: OpenedSignatures, key: string): string {
    this.log.prepared.push(key);
    const outcome = this.outcomes[key];
    if (outcome === undefined) throw new Error(`no outcome for ${key}`);
    if (outcome !== 'ok') throw outcome;
    return key;
  }

  servable(_version: OpenedSignatures, prepared: ReadonlyMap<string, string>, refused: ReadonlyMap<string, Refusal>): Servable {
    return fakeServable(this.name, [...prepared.keys()], refused, this.log);
  }
}

const cannotRun = (op: string) => new EngineCannotRun(`ops this engine cannot run: ${op} (node n)`);

describe('signature-loading pipeline', () => {
  it('serves what prepares, refuses the rest with its reason and code, never prepares the init op', async () => {
    const engine = new FakeEngine('fake', {
      a: 'ok',
      b: cannotRun('Lgamma'),
      c: new ServingError(Code.INVALID_ARGUMENT, 'graph writes variable v'),
    });
    const servable = await engine.load(DIR, TAGS);
    assert.deepEqual(engine.log.prepared, ['a', 'b', 'c']);
    assert.deepEqual(Object.keys(servable.engines), ['a']);
    // Refused for good first, then the ones a second engine might have taken.
    assert.deepEqual(Object.entries(servable.refusals), [
      ['c', 'graph writes variable v'],
      ['b', 'ops this engine cannot run: Lgamma (node n)'],
    ]);
    assert.deepEqual(Object.keys(servable.signatures).sort(), ['a', 'b', 'c']);
    assert.equal(engine.log.released, 0, 'the servable owns the version');
  });

  for (const code of [Code.NOT_FOUND, Code.DATA_LOSS]) {
    it(`${Code[code]} from one signature spoils the version and frees what was prepared`, async () => {
      const engine = new FakeEngine('fake', {
        a: 'ok',
        b: new ServingError(code, 'variables/variables.data-00000-of-00001: checksum mismatch'),
        c: 'ok',
      });
      await assert.rejects(
        engine.load(DIR, TAGS),
        isError(code, /^\/models\/m\/1: variables\/variables\.data-00000-of-00001: checksum mismatch$/),
      );
      assert.deepEqual(engine.log.prepared, ['a', 'b'], 'no signature is prepared after the spoiling one');
      assert.deepEqual(engine.log.disposed, [['a']]);
    });
  }

  it('none served: FAILED_PRECONDITION naming every refusal, and the version released', async () => {
    const engine = new FakeEngine(
      'fake',
      { a: new ServingError(Code.INVALID_ARGUMENT, 'no placeholder x'), b: cannotRun('Lgamma') },
      journal(),
      undefined,
      undefined,
      'libfake',
    );
    await assert.rejects(engine.load(DIR, TAGS), (e: unknown) => {
      assert.ok(e instanceof ServingError);
      assert.equal(e.code, Code.FAILED_PRECONDITION);
      assert.equal(
        e.message,
        '/models/m/1: no signature can be served by libfake (a: no placeholder x; b: ops this engine cannot run: Lgamma (node n))',
      );
      return true;
    });
    assert.equal(engine.log.released, 1);
  });

  it('a JS fault in a prepare step refuses that signature as an internal error, never with its JS text', async () => {
    const engine = new FakeEngine('fake', { a: 'ok', b: new TypeError("Cannot read properties of undefined (reading 'shape')") });
    const servable = await engine.load(DIR, TAGS);
    assert.match(servable.refusals.b, /^Internal error [0-9a-f]{8} in tfgate/);
  });

  it('a complete load checks the whole checkpoint; a partial one (options.signatures) prepares only those and does not', async () => {
    const corrupt = () => {
      throw new ServingError(Code.DATA_LOSS, 'Checksum does not match: stored 1 vs. calculated on the restored bytes 2');
    };
    const engine = new FakeEngine('fake', { a: 'ok', b: 'ok' }, journal(), corrupt);
    await assert.rejects(engine.load(DIR, TAGS), isError(Code.DATA_LOSS, /^\/models\/m\/1: Checksum does not match/));
    assert.deepEqual(engine.log.disposed, [['a', 'b']]);
    const part = await engine.load(DIR, { ...TAGS, signatures: ['b'] });
    assert.deepEqual(Object.keys(part.engines), ['b']);
    assert.deepEqual(engine.log.prepared, ['a', 'b', 'b']);
  });
});

describe('CompositeRuntime: the first engine, then another for what it hands off', () => {
  it('hands EngineCannotRun signatures to the second engine in one partial load, keeping the reason', async () => {
    const first = new FakeEngine('first', {
      a: 'ok',
      b: cannotRun('Lgamma'),
      c: new ServingError(Code.INVALID_ARGUMENT, 'graph writes variable v'),
    });
    const second = new FakeEngine('second', { b: 'ok' });
    const logged: string[] = [];
    const servable = await new CompositeRuntime(first, second, (m) => logged.push(m)).load(DIR, TAGS);
    assert.deepEqual(
      second.log.opened.map((o) => o.signatures),
      [['b']],
      'only the handed-off signature, in one load',
    );
    assert.deepEqual(servable.engines, {
      a: { engine: 'first' },
      b: { engine: 'second', reason: 'ops this engine cannot run: Lgamma (node n)' },
    });
    assert.deepEqual(servable.refusals, { c: 'graph writes variable v' }, 'a refusal for good is not handed off');
    assert.equal(servable.backend, 'first+second');
    const answer = await servable.run('b', {});
    assert.equal(new TextDecoder().decode(answer.answeredBy.values[0] as Uint8Array), 'second:b');
    assert.deepEqual(logged, ["/models/m/1: signature 'c' is not served: graph writes variable v"]);
  });

  it('a signature neither engine runs keeps both reasons; none served anywhere is FAILED_PRECONDITION', async () => {
    const first = new FakeEngine('first', { a: 'ok', b: cannotRun('Lgamma') });
    const second = new FakeEngine('second', { b: new ServingError(Code.INVALID_ARGUMENT, 'no kernel for Lgamma on wasm') });
    const servable = await new CompositeRuntime(first, second).load(DIR, TAGS);
    // The second engine's load of b alone failed as a whole: its code, both texts.
    assert.equal(
      servable.refusals.b,
      'ops this engine cannot run: Lgamma (node n); second: /models/m/1: no signature can be served (b: no kernel for Lgamma on wasm)',
    );
    const none = new FakeEngine('first', { b: cannotRun('Lgamma') });
    await assert.rejects(
      new CompositeRuntime(none, second).load(DIR, TAGS),
      isError(
        Code.FAILED_PRECONDITION,
        /^\/models\/m\/1: no signature can be served \(b: ops this engine cannot run: Lgamma \(node n\); second: /,
      ),
    );
  });

  it("a version the first engine cannot open at all is the second engine's whole", async () => {
    const first = new FakeEngine('first', {}, journal(), undefined, new EngineCannotRun(`${DIR}: first cannot read model.json folders`));
    const second = new FakeEngine('second', { a: 'ok' });
    const servable = await new CompositeRuntime(first, second).load(DIR, TAGS);
    assert.deepEqual(servable.engines, { a: { engine: 'second' } });
    assert.deepEqual(
      second.log.opened.map((o) => o.signatures),
      [undefined],
    );
    // Any other failure to open is the version's.
    const broken = new FakeEngine(
      'first',
      {},
      journal(),
      undefined,
      new ServingError(Code.NOT_FOUND, 'Could not find SavedModel .pb or .pbtxt'),
    );
    await assert.rejects(new CompositeRuntime(broken, second).load(DIR, TAGS), isError(Code.NOT_FOUND, /Could not find SavedModel/));
  });
});
