/**
 * A queue that takes turns between accounts: each account's items in order, the accounts in
 * rotation, so one account with a hundred heavy requests waiting delays another account's one
 * request by at most one task, not a hundred.
 */
export class FairQueue<T> {
  private readonly lines = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  sizeOf(account: string): number {
    return this.lines.get(account)?.length ?? 0;
  }

  /**
   * Items served before one `account` would push now: its own line, and from every other line as
   * many as take their turns meanwhile (one more than its own line holds, at most).
   */
  ahead(account: string): number {
    const own = this.sizeOf(account);
    let ahead = own;
    for (const [other, line] of this.lines) if (other !== account) ahead += Math.min(line.length, own + 1);
    return ahead;
  }

  push(account: string, item: T): void {
    const line = this.lines.get(account);
    if (line) line.push(item);
    else this.lines.set(account, [item]);
    this.count++;
  }

  /** The next item: the first of the account whose turn it is; that account goes to the back. */
  shift(): T | undefined {
    for (const [account, line] of this.lines) {
      const item = line.shift()!;
      // Map order is insertion order: re-inserting puts the account at the back of the rotation.
      this.lines.delete(account);
      if (line.length > 0) this.lines.set(account, line);
      this.count--;
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
