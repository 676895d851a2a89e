// Calls that arrive while an object is busy are served together when their turn comes: an environment
// object under several concurrent batches applies them in one transaction instead of one each, so a
// queue of projections costs the database one round of statements rather than one per batch.
export class Coalescer<In, Out> {
  #waiting: Array<{ input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }> = [];

  /**
   * `schedule` runs a drain at the object's next turn for it; `serve` answers the inputs waiting then,
   * one output per input in order (a failure fails every call it served).
   */
  readonly #schedule: (drain: () => Promise<void>) => void;
  readonly #serve: (inputs: In[]) => Promise<Out[]>;

  constructor(schedule: (drain: () => Promise<void>) => void, serve: (inputs: In[]) => Promise<Out[]>) {
    this.#schedule = schedule;
    this.#serve = serve;
  }

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      // The first call to wait asks for a turn; the calls after it join it until it starts.
      if (this.#waiting.length === 1) this.#schedule(() => this.#drain());
    });
  }

  async #drain(): Promise<void> {
    const calls = this.#waiting.splice(0);
    try {
      const outputs = await this.#serve(calls.map((call) => call.input));
      calls.forEach((call, i) => call.resolve(outputs[i]!));
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }
}
