/** A Map store that fails like an unreachable server while `down` is set: for storage-outage tests. */
export class FlakyMap extends Map<string, unknown> {
  down = false;

  override get(key: string) {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    return super.get(key);
  }

  override set(key: string, value: unknown) {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    return super.set(key, value);
  }
}
