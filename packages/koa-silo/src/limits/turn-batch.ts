/**
 * Calls made during one turn of the event loop, answered together right after it: what many
 * requests ask of a database in one turn (the records their keys name, their rate-limit counters,
 * their change-feed notices) goes out as one statement instead of one each. On a networked store
 * the round trip costs both processes more CPU than the statement's work does (a socket write and
 * read on each side, a wake-up of the database's backend on the same cores), so under load this
 * divides that cost by the number of calls a turn gathers; with no load a call waits only for the
 * rest of the turn it was made in.
 *
 * Calls made in one I/O callback, and in the microtasks that follow it, are one turn's; so are the
 * callbacks of one poll of the loop (the requests whose bytes arrived together), because the
 * batch runs in the check phase (setImmediate) that comes after them.
 */

interface Call<In, Out> {
  input: In;
  resolve(output: Out): void;
  reject(error: unknown): void;
}

export class TurnBatch<In, Out> {
  #calls: Call<In, Out>[] = [];

  /**
   * @param run answers `inputs` in their order (one output each); its failure is every call's.
   * @param maxPerRun the most inputs one run takes (a turn's calls beyond it make further runs).
   */
  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxPerRun = 256,
  ) {}

  /** `input`'s output, from the run of this turn's calls. */
  call(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      if (this.#calls.length === 0) setImmediate(() => this.#flush());
      this.#calls.push({ input, resolve, reject });
    });
  }

  #flush(): void {
    const calls = this.#calls;
    this.#calls = [];
    for (let start = 0; start < calls.length; start += this.maxPerRun) void this.#runPart(calls.slice(start, start + this.maxPerRun));
  }

  async #runPart(calls: Call<In, Out>[]): Promise<void> {
    try {
      const outputs = await this.run(calls.map((c) => c.input));
      if (outputs.length !== calls.length) throw new Error(`a batch of ${calls.length} calls got ${outputs.length} answers`);
      calls.forEach((c, i) => c.resolve(outputs[i]!));
    } catch (error) {
      for (const c of calls) c.reject(error);
    }
  }
}
