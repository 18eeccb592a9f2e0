/**
 * A Map of at most `max` entries: adding one more drops the oldest eighth first.
 *
 * Not the oldest one per entry added: a Map leaves a hole for each entry deleted until it next
 * rehashes, and `keys().next()` walks every hole from the front, so dropping one at a time cost up
 * to half the map per insert (4.4 µs at 10 000 entries, about 40 µs at 100 000) where an eighth at
 * a time costs 0.26 µs.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) {
      let drop = Math.max(1, this.max >> 3);
      for (const oldest of this.keys()) {
        if (drop-- === 0) break;
        this.delete(oldest);
      }
    }
    return super.set(key, value);
  }
}
