// The libstdc++ algorithms TensorFlow's CPU kernels order their results with, step for step
// (bits/stl_heap.h, bits/stl_algo.h as GCC ships them; TF's Linux builds link libstdc++):
// std::push_heap / pop_heap / make_heap / sort_heap, std::priority_queue over a vector, and
// std::sort (introsort, median of three, insertion sort below 16 elements). Where a kernel's
// comparator leaves ties (CombinedNonMaxSuppression sorts its candidates by score alone; its
// per-class queue compares scores alone; TopK's unsorted output is a heap's order), the order
// TF answers is the one these algorithms leave, so they are reproduced rather than replaced
// by JavaScript's stable sort.

/** `less(a, b)`: the C++ comparator (for a heap, the element for which it is never true comes first). */
export type Less<T> = (a: T, b: T) => boolean;

const half = (n: number) => Math.trunc(n / 2);

/** std::__push_heap: moves `value` up from `hole` to no higher than `top`. */
function pushHole<T>(a: T[], first: number, hole: number, top: number, value: T, less: Less<T>): void {
  let parent = half(hole - 1);
  while (hole > top && less(a[first + parent], value)) {
    a[first + hole] = a[first + parent];
    hole = parent;
    parent = half(hole - 1);
  }
  a[first + hole] = value;
}

/** std::__adjust_heap: sifts the hole at `hole` down to a leaf, then pushes `value` back up. */
function adjustHeap<T>(a: T[], first: number, hole: number, len: number, value: T, less: Less<T>): void {
  const top = hole;
  let child = hole;
  while (child < half(len - 1)) {
    child = 2 * (child + 1);
    if (less(a[first + child], a[first + child - 1])) child--;
    a[first + hole] = a[first + child];
    hole = child;
  }
  if ((len & 1) === 0 && child === half(len - 2)) {
    child = 2 * (child + 1);
    a[first + hole] = a[first + child - 1];
    hole = child - 1;
  }
  pushHole(a, first, hole, top, value, less);
}

/** std::__pop_heap(first, last, result): the top goes to `result`, what was there is re-inserted. */
function popHeapInto<T>(a: T[], first: number, last: number, result: number, less: Less<T>): void {
  const value = a[result];
  a[result] = a[first];
  adjustHeap(a, first, 0, last - first, value, less);
}

/** std::push_heap(a[first..last)): the last element joins the heap before it. */
export function pushHeap<T>(a: T[], first: number, last: number, less: Less<T>): void {
  pushHole(a, first, last - first - 1, 0, a[last - 1], less);
}

/** std::pop_heap(a[first..last)): the top moves to last - 1. */
export function popHeap<T>(a: T[], first: number, last: number, less: Less<T>): void {
  if (last - first > 1) popHeapInto(a, first, last - 1, last - 1, less);
}

/** std::make_heap(a[first..last)). */
export function makeHeap<T>(a: T[], first: number, last: number, less: Less<T>): void {
  const len = last - first;
  if (len < 2) return;
  for (let parent = half(len - 2); ; parent--) {
    adjustHeap(a, first, parent, len, a[first + parent], less);
    if (parent === 0) return;
  }
}

function sortHeap<T>(a: T[], first: number, last: number, less: Less<T>): void {
  while (last - first > 1) {
    last--;
    popHeapInto(a, first, last, last, less);
  }
}

/** std::priority_queue<T, std::vector<T>, Less>: push_back + push_heap, pop_heap + pop_back. */
export class PriorityQueue<T> {
  private readonly c: T[] = [];
  constructor(private readonly less: Less<T>) {}

  get size(): number {
    return this.c.length;
  }

  top(): T {
    return this.c[0];
  }

  push(x: T): void {
    this.c.push(x);
    pushHeap(this.c, 0, this.c.length, this.less);
  }

  pop(): T {
    popHeap(this.c, 0, this.c.length, this.less);
    return this.c.pop()!;
  }
}

const THRESHOLD = 16; // std::_S_threshold

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** std::__move_median_to_first. */
function medianToFirst<T>(a: T[], result: number, x: number, y: number, z: number, less: Less<T>): void {
  if (less(a[x], a[y])) {
    if (less(a[y], a[z])) swap(a, result, y);
    else if (less(a[x], a[z])) swap(a, result, z);
    else swap(a, result, x);
  } else if (less(a[x], a[z])) swap(a, result, x);
  else if (less(a[y], a[z])) swap(a, result, z);
  else swap(a, result, y);
}

/** std::__unguarded_partition with the pivot at `pivot`. */
function unguardedPartition<T>(a: T[], first: number, last: number, pivot: number, less: Less<T>): number {
  for (;;) {
    while (less(a[first], a[pivot])) first++;
    last--;
    while (less(a[pivot], a[last])) last--;
    if (!(first < last)) return first;
    swap(a, first, last);
    first++;
  }
}

function introsortLoop<T>(a: T[], first: number, last: number, depth: number, less: Less<T>): void {
  while (last - first > THRESHOLD) {
    if (depth === 0) {
      // std::__partial_sort(first, last, last): a heap sort.
      makeHeap(a, first, last, less);
      sortHeap(a, first, last, less);
      return;
    }
    depth--;
    const mid = first + half(last - first);
    medianToFirst(a, first, first + 1, mid, last - 1, less);
    const cut = unguardedPartition(a, first + 1, last, first, less);
    introsortLoop(a, cut, last, depth, less);
    last = cut;
  }
}

/** std::__unguarded_linear_insert. */
function linearInsert<T>(a: T[], last: number, less: Less<T>): void {
  const value = a[last];
  let next = last - 1;
  while (less(value, a[next])) {
    a[last] = a[next];
    last = next;
    next--;
  }
  a[last] = value;
}

function insertionSort<T>(a: T[], first: number, last: number, less: Less<T>): void {
  if (first === last) return;
  for (let i = first + 1; i !== last; i++) {
    if (less(a[i], a[first])) {
      const value = a[i];
      a.copyWithin(first + 1, first, i);
      a[first] = value;
    } else linearInsert(a, i, less);
  }
}

/** std::sort(a.begin(), a.end(), less). */
export function stdSort<T>(a: T[], less: Less<T>): void {
  const n = a.length;
  if (n === 0) return;
  introsortLoop(a, 0, n, 2 * (31 - Math.clz32(n)), less);
  if (n > THRESHOLD) {
    insertionSort(a, 0, THRESHOLD, less);
    for (let i = THRESHOLD; i !== n; i++) linearInsert(a, i, less);
  } else insertionSort(a, 0, n, less);
}
