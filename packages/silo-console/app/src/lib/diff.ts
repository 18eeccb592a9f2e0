/** One line of a line diff: kept (' '), only in the old text ('-'), only in the new ('+'). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Past this many edits the middle is shown as removed then added: a diff that large is not read line by line anyway. */
const MAX_EDITS = 2000;

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Myers' O(ND) shortest edit script between a and b (the diff of `diff` and git), with the
 * trace of each round kept to walk back. Returns undefined past maxEdits, so a huge rewrite
 * costs O(maxEdits²) at most rather than time and memory in the product of the lengths.
 */
function myers(a: string[], b: string[], maxEdits: number): DiffLine[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))) x = v[offset + k + 1] ?? 0;
      else x = (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, next, d, offset);
    }
    v = next;
  }
  return undefined;
}

function backtrack(a: string[], b: string[], trace: Int32Array[], last: Int32Array, dEnd: number, offset: number): DiffLine[] {
  const out: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d >= 0; d--) {
    // trace[d] is V before round d; `last` (for d = dEnd) and trace[d + 1] after it.
    const before = trace[d] ?? last;
    const k = x - y;
    let prevK: number;
    if (d === 0) prevK = k;
    else if (k === -d || (k !== d && (before[offset + k - 1] ?? 0) < (before[offset + k + 1] ?? 0))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = d === 0 ? 0 : (before[offset + prevK] ?? 0);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ op: ' ', text: a[x - 1] ?? '' });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) out.push({ op: '+', text: b[y - 1] ?? '' });
      else out.push({ op: '-', text: a[x - 1] ?? '' });
    }
    x = prevX;
    y = prevY;
  }
  return out.reverse();
}

/**
 * A line diff from `before` to `after`: common first and last lines are matched cheaply, the
 * middle by Myers' algorithm, or, past MAX_EDITS changes, shown as removed then added.
 */
export function lineDiff(before: string, after: string, maxEdits = MAX_EDITS): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffLine => ({ op: ' ', text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ op: ' ', text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const mid = myers(midA, midB, maxEdits) ?? [
    ...midA.map((text): DiffLine => ({ op: '-', text })),
    ...midB.map((text): DiffLine => ({ op: '+', text })),
  ];
  return [...head, ...mid, ...tail];
}

/** How many lines each side changed, for a summary above the diff. */
export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.op === '+') added++;
    else if (l.op === '-') removed++;
  }
  return { added, removed };
}
