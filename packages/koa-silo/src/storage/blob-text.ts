/**
 * The data of a version from its blobs: a whole JSON text, then, for an array silo that was
 * appended to, the tails: each the texts of the elements one append added, comma-separated. The
 * stored texts are compact, so the array's closing bracket is its last character.
 */

/** The JSON text of `base` with each tail's elements added at the end of its array. */
export function joinTail(base: string, tail: readonly string[]): string {
  if (tail.length === 0) return base;
  const added = tail.join(',');
  return base.length === 2 ? `[${added}]` : `${base.slice(0, -1)},${added}]`;
}
