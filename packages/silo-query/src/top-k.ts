/**
 * The first `k` of `0 … n-1` under a total order, in that order, without sorting all `n`: a
 * bounded max-heap holds the best `k` seen so far, its worst at the top, so each further index
 * costs one comparison with the top and, when it is better, O(log k) to sift it in. O(n log k)
 * time, O(k) space (contract §16: `sort` with `limit` k).
 *
 * The order must be total (no two indexes compare equal): sort.ts breaks ties by index, which is
 * what makes the result the same as a stable full sort followed by a slice.
 */
export type IndexOrder = (i: number, j: number) => number;

/** The `k` smallest indexes of `0 … n-1` under `cmp`, smallest first. */
export function smallestK(n: number, k: number, cmp: IndexOrder): number[] {
  if (k <= 0 || n <= 0) return [];
  if (k >= n) return sortAll(n, cmp);
  const heap = new Array<number>(k);
  for (let i = 0; i < k; i++) {
    heap[i] = i;
    siftUp(heap, i, cmp);
  }
  for (let i = k; i < n; i++) {
    if (cmp(i, heap[0]!) < 0) {
      heap[0] = i;
      siftDown(heap, k, cmp);
    }
  }
  return heap.sort(cmp);
}

/** Every index of `0 … n-1`, sorted by `cmp`. */
export function sortAll(n: number, cmp: IndexOrder): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out.sort(cmp);
}

/** Max-heap: a parent is never better (smaller) than its children. */
function siftUp(heap: number[], at: number, cmp: IndexOrder): void {
  let c = at;
  const v = heap[c]!;
  while (c > 0) {
    const p = (c - 1) >> 1;
    const pv = heap[p]!;
    if (cmp(v, pv) <= 0) break;
    heap[c] = pv;
    c = p;
  }
  heap[c] = v;
}

function siftDown(heap: number[], size: number, cmp: IndexOrder): void {
  let p = 0;
  const v = heap[0]!;
  for (;;) {
    const l = 2 * p + 1;
    if (l >= size) break;
    const r = l + 1;
    const c = r < size && cmp(heap[r]!, heap[l]!) > 0 ? r : l;
    const cv = heap[c]!;
    if (cmp(cv, v) <= 0) break;
    heap[p] = cv;
    p = c;
  }
  heap[p] = v;
}
