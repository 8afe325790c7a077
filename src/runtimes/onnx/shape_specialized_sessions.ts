// TF's C++ runtime does not hold a feed to its placeholder's declared shape: TF Serving's
// half_plus_two declares x as [?, 1] and answers {"instances": [1.0, 2.0, 5.0]}, a [3]
// tensor. ONNX Runtime checks every feed against the graph's declared input shapes, and the
// converter relies on those shapes (ranks, static sizes such as SAME padding's). So a
// signature keeps one session built for its declared shapes, and a request that does not
// fit them gets a session converted for its own shapes (the declared unknown dims stay
// unknown; a different rank keeps only the batch dim free), built on first use and cached.
import type { HostTensor } from '../../tensor/host_tensor.js';
import { invalidArgument } from '../../errors/status.js';
import type { OnnxSession } from './onnx_session.js';
import { OnnxConversionRefused, type FeedSpec } from './tf_to_onnx.js';

/** Sessions beyond the declared one kept per signature (least recently used goes first). */
const MAX_SPECIALIZED = 8;

export type SessionBuilder = (feeds: ReadonlyMap<string, FeedSpec>) => Promise<OnnxSession>;

function fits(declared: number[] | null, actual: number[]): boolean {
  return declared === null || (declared.length === actual.length && declared.every((d, i) => d < 0 || d === actual[i]));
}

function specializedShape(declared: number[] | null, actual: number[]): number[] {
  if (declared && declared.length === actual.length) return actual.map((d, i) => (declared[i] < 0 ? -1 : d));
  return actual.map((d, i) => (i === 0 ? -1 : d));
}

function sameShape(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ShapeSpecializedSessions {
  private readonly specialized = new Map<string, Promise<OnnxSession>>();
  /** The key used last (already the most recent in `specialized`). */
  private lastKey?: string;
  /**
   * The specialized session built and used last, with the feeds' shapes it served (declared
   * order): requests of one shape in a row take it at once, no key string built, no promise.
   */
  private last?: { shapes: Array<readonly number[] | undefined>; session: OnnxSession };

  constructor(
    private readonly declared: ReadonlyMap<string, FeedSpec>,
    readonly main: OnnxSession,
    private readonly build: SessionBuilder,
  ) {}

  /** The session for these feeds (placeholder → value); at once when it is built already and was the last used. */
  sessionFor(feeds: ReadonlyMap<string, HostTensor>): OnnxSession | Promise<OnnxSession> {
    let fitsAll = true;
    for (const [name, spec] of this.declared) {
      const t = feeds.get(name);
      if (t && !fits(spec.shape, t.shape)) fitsAll = false;
    }
    if (fitsAll) return this.main;
    const last = this.last;
    if (last) {
      let same = true;
      let i = 0;
      for (const name of this.declared.keys()) if (!sameShape(last.shapes[i++], feeds.get(name)?.shape)) same = false;
      if (same) return last.session;
    }
    // The key from the shapes alone: a request of a shape seen before builds no specs.
    let key = '';
    for (const [name, spec] of this.declared) {
      const t = feeds.get(name);
      key += `${name}\u0000${t ? specializedShape(spec.shape, t.shape).join(',') : String(spec.shape)}\u0000`;
    }
    const fedShapes = [...this.declared.keys()].map((name) => feeds.get(name)?.shape);
    const remember = (session: OnnxSession) => {
      // Still in the cache (not evicted meanwhile): the next request of these shapes takes it at once.
      if (this.specialized.has(key)) this.last = { shapes: fedShapes, session };
      return session;
    };
    let session = this.specialized.get(key);
    if (session) {
      // Most recently used last.
      if (key !== this.lastKey) {
        this.specialized.delete(key);
        this.specialized.set(key, session);
        this.lastKey = key;
      }
      return session.then(remember);
    }
    const specs = new Map<string, FeedSpec>();
    for (const [name, spec] of this.declared) {
      const t = feeds.get(name);
      specs.set(name, { dtype: spec.dtype, shape: t ? specializedShape(spec.shape, t.shape) : spec.shape });
    }
    session = this.build(specs).catch((e: unknown) => {
      this.specialized.delete(key);
      if (e instanceof OnnxConversionRefused) {
        const shapes = [...specs].map(([n, s]) => `${n}: [${s.shape}]`).join(', ');
        throw invalidArgument(
          `inputs of shape ${shapes} do not fit the signature's declared shapes, and its graph cannot run with them: ${e.message}`,
        );
      }
      throw e;
    });
    this.specialized.set(key, session);
    this.lastKey = key;
    // A new session may evict another: the last one is taken at once again only once this one is built.
    this.last = undefined;
    if (this.specialized.size > MAX_SPECIALIZED) {
      const [oldestKey, oldest] = this.specialized.entries().next().value as [string, Promise<OnnxSession>];
      this.specialized.delete(oldestKey);
      void oldest.then(
        (s) => s.dispose(),
        () => {},
      );
    }
    return session.then(remember);
  }

  dispose(): void {
    this.main.dispose();
    for (const s of this.specialized.values())
      void s.then(
        (x) => x.dispose(),
        () => {},
      );
  }
}
