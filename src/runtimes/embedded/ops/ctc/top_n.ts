// TensorFlow's gtl::TopN (core/lib/gtl/top_n.h) with the libstdc++ heap and sort algorithms
// it runs on, step for step. The CTC beam search keeps its beam in a TopN whose entries'
// scores change while they sit in it and often tie; which entry a tie keeps, and in what order
// the beam comes out, is whatever these algorithms do — so the beam search answers TF's paths
// only if they are reproduced exactly, not just "a" top-n.
//
// `greater(a, b)` is the TopN's Cmp ("a is better than b"); the heap is a std heap under Cmp,
// so its front is the worst kept element.

type Greater<T> = (a: T, b: T) => boolean;

/** std::__push_heap */
function pushHeapHole<T>(v: T[], first: number, hole: number, top: number, value: T, cmp: Greater<T>): void {
  let parent = Math.floor((hole - 1) / 2);
  while (hole > top && cmp(v[first + parent], value)) {
    v[first + hole] = v[first + parent];
    hole = parent;
    parent = Math.floor((hole - 1) / 2);
  }
  v[first + hole] = value;
}

/** std::__adjust_heap */
function adjustHeap<T>(v: T[], first: number, hole: number, len: number, value: T, cmp: Greater<T>): void {
  const top = hole;
  let child = hole;
  while (child < Math.floor((len - 1) / 2)) {
    child = 2 * (child + 1);
    if (cmp(v[first + child], v[first + child - 1])) child--;
    v[first + hole] = v[first + child];
    hole = child;
  }
  if ((len & 1) === 0 && child === Math.floor((len - 2) / 2)) {
    child = 2 * (child + 1);
    v[first + hole] = v[first + child - 1];
    hole = child - 1;
  }
  pushHeapHole(v, first, hole, top, value, cmp);
}

/** std::__pop_heap(first, last, result): *result's value sifted in, the front moved to result. */
function popHeapInto<T>(v: T[], first: number, last: number, result: number, cmp: Greater<T>): void {
  const value = v[result];
  v[result] = v[first];
  adjustHeap(v, first, 0, last - first, value, cmp);
}

function makeHeap<T>(v: T[], first: number, last: number, cmp: Greater<T>): void {
  const len = last - first;
  if (len < 2) return;
  for (let parent = Math.floor((len - 2) / 2); ; parent--) {
    adjustHeap(v, first, parent, len, v[first + parent], cmp);
    if (parent === 0) return;
  }
}

function pushHeap<T>(v: T[], first: number, last: number, cmp: Greater<T>): void {
  pushHeapHole(v, first, last - first - 1, 0, v[last - 1], cmp);
}

function popHeap<T>(v: T[], first: number, last: number, cmp: Greater<T>): void {
  if (last - first > 1) popHeapInto(v, first, last - 1, last - 1, cmp);
}

function sortHeap<T>(v: T[], first: number, last: number, cmp: Greater<T>): void {
  while (last - first > 1) {
    last--;
    popHeapInto(v, first, last, last, cmp);
  }
}

const swap = <T>(v: T[], i: number, j: number) => ([v[i], v[j]] = [v[j], v[i]]);

/** std::__move_median_to_first */
function moveMedianToFirst<T>(v: T[], result: number, a: number, b: number, c: number, cmp: Greater<T>): void {
  if (cmp(v[a], v[b])) {
    if (cmp(v[b], v[c])) swap(v, result, b);
    else if (cmp(v[a], v[c])) swap(v, result, c);
    else swap(v, result, a);
  } else if (cmp(v[a], v[c])) swap(v, result, a);
  else if (cmp(v[b], v[c])) swap(v, result, c);
  else swap(v, result, b);
}

/** std::__unguarded_partition */
function unguardedPartition<T>(v: T[], first: number, last: number, pivot: number, cmp: Greater<T>): number {
  for (;;) {
    while (cmp(v[first], v[pivot])) first++;
    last--;
    while (cmp(v[pivot], v[last])) last--;
    if (!(first < last)) return first;
    swap(v, first, last);
    first++;
  }
}

function unguardedLinearInsert<T>(v: T[], last: number, cmp: Greater<T>): void {
  const value = v[last];
  let next = last - 1;
  while (cmp(value, v[next])) {
    v[last] = v[next];
    last = next;
    next--;
  }
  v[last] = value;
}

function insertionSort<T>(v: T[], first: number, last: number, cmp: Greater<T>): void {
  if (first === last) return;
  for (let i = first + 1; i !== last; i++) {
    if (cmp(v[i], v[first])) {
      const value = v[i];
      for (let j = i; j > first; j--) v[j] = v[j - 1];
      v[first] = value;
    } else unguardedLinearInsert(v, i, cmp);
  }
}

const THRESHOLD = 16;

function introsortLoop<T>(v: T[], first: number, last: number, depth: number, cmp: Greater<T>): void {
  while (last - first > THRESHOLD) {
    if (depth === 0) {
      // std::__partial_sort(first, last, last): heap-select (nothing left to select) and sort_heap.
      makeHeap(v, first, last, cmp);
      sortHeap(v, first, last, cmp);
      return;
    }
    depth--;
    moveMedianToFirst(v, first, first + 1, first + Math.floor((last - first) / 2), last - 1, cmp);
    const cut = unguardedPartition(v, first + 1, last, first, cmp);
    introsortLoop(v, cut, last, depth, cmp);
    last = cut;
  }
}

/** std::sort(v.begin(), v.end(), cmp) as libstdc++ does it (introsort, then insertion sort). */
function stdSort<T>(v: T[], cmp: Greater<T>): void {
  const n = v.length;
  if (n === 0) return;
  introsortLoop(v, 0, n, 2 * Math.floor(Math.log2(n)), cmp);
  if (n > THRESHOLD) {
    insertionSort(v, 0, THRESHOLD, cmp);
    for (let i = THRESHOLD; i < n; i++) unguardedLinearInsert(v, i, cmp);
  } else insertionSort(v, 0, n, cmp);
}

const enum State {
  Unordered,
  BottomKnown,
  HeapSorted,
}

/** gtl::TopN<T, Cmp>: the `limit` best elements pushed so far. */
export class TopN<T> {
  private elements: T[] = [];
  private state = State.Unordered;

  constructor(
    readonly limit: number,
    private readonly cmp: Greater<T>,
  ) {}

  get size(): number {
    return Math.min(this.elements.length, this.limit);
  }

  push(value: T): void {
    if (this.limit === 0) return;
    const v = this.elements;
    if (this.state !== State.HeapSorted) {
      v.push(value);
      if (this.state !== State.Unordered && !this.cmp(v[v.length - 1], v[0])) swap(v, 0, v.length - 1);
      if (v.length === this.limit + 1) {
        makeHeap(v, 0, v.length, this.cmp);
        popHeap(v, 0, v.length, this.cmp);
        this.state = State.HeapSorted;
      }
    } else if (this.cmp(value, v[0])) {
      v[v.length - 1] = value;
      pushHeap(v, 0, v.length, this.cmp);
      popHeap(v, 0, v.length, this.cmp);
    }
  }

  /** The worst kept element (a linear scan the first time, as TF's). */
  peekBottom(): T {
    const v = this.elements;
    if (this.state === State.Unordered) {
      let min = 0;
      for (let i = 1; i < v.length; i++) if (this.cmp(v[min], v[i])) min = i;
      if (min !== 0) swap(v, 0, min);
      this.state = State.BottomKnown;
    }
    return v[0];
  }

  /** The kept elements, best first; leaves the TopN to be reset. */
  extract(): T[] {
    const out = this.elements;
    this.elements = [];
    if (this.state !== State.HeapSorted) stdSort(out, this.cmp);
    else {
      out.pop();
      sortHeap(out, 0, out.length, this.cmp);
    }
    return out;
  }

  /** The kept elements in storage order (TF's unsorted_begin … unsorted_end). */
  unsorted(): T[] {
    return this.elements.slice(0, this.size);
  }

  reset(): void {
    this.elements = [];
    this.state = State.Unordered;
  }
}
