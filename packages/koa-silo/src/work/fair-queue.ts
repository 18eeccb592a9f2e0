/**
 * A queue that takes turns between accounts: each account's items in order, the accounts in
 * rotation, so one account with a hundred heavy requests waiting delays another account's one
 * request by at most one task, not a hundred. An account that starts waiting goes before the
 * account served last, which has had its turn: appended behind it, its first request waited for
 * two of the other's tasks (the one running and the next), long enough to be refused.
 */
export class FairQueue<T> {
  private readonly lines = new Map<string, T[]>();
  private count = 0;
  /** The account of the item shifted last: at the back of the rotation while it has items. */
  private lastServed: string | undefined;

  get size(): number {
    return this.count;
  }

  sizeOf(account: string): number {
    return this.lines.get(account)?.length ?? 0;
  }

  /**
   * Items served before one `account` would push now: its own line, and from every other line as
   * many as take their turns meanwhile: one more than its own line holds from the lines before its
   * place in the rotation, as many from those after it.
   */
  ahead(account: string): number {
    const own = this.sizeOf(account);
    let ahead = own;
    let before = true;
    for (const [other, line] of this.lines) {
      // Its place: where its line is, or (none yet) just before the account served last.
      if (other === account || (own === 0 && other === this.lastServed)) before = false;
      if (other !== account) ahead += Math.min(line.length, before ? own + 1 : own);
    }
    return ahead;
  }

  push(account: string, item: T): void {
    const line = this.lines.get(account);
    this.count++;
    if (line) return void line.push(item);
    this.lines.set(account, [item]);
    // The account served last is at the back; moved behind the new line, it stays there.
    const served = this.lastServed === undefined ? undefined : this.lines.get(this.lastServed);
    if (served) {
      this.lines.delete(this.lastServed!);
      this.lines.set(this.lastServed!, served);
    }
  }

  /** The next item: the first of the account whose turn it is; that account goes to the back. */
  shift(): T | undefined {
    for (const [account, line] of this.lines) {
      const item = line.shift()!;
      // Map order is insertion order: re-inserting puts the account at the back of the rotation.
      this.lines.delete(account);
      if (line.length > 0) this.lines.set(account, line);
      this.count--;
      this.lastServed = account;
      return item;
    }
    return undefined;
  }

  /** Takes `item` out (it gave up waiting); false when it was not queued. */
  remove(account: string, item: T): boolean {
    const line = this.lines.get(account);
    const index = line ? line.indexOf(item) : -1;
    if (index === -1) return false;
    line!.splice(index, 1);
    if (line!.length === 0) this.lines.delete(account);
    this.count--;
    return true;
  }
}
