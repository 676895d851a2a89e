// Turns for an object's calls while they wait on the database (a Durable Object's input gates do not
// hold across that I/O): an exclusive call runs alone, shared calls run side by side with each other.
// Both in arrival order: a call waits for every exclusive one before it, and an exclusive one also
// waits for the shared ones before it.
export class Turns {
  #lastExclusive: Promise<unknown> = Promise.resolve();
  #sharedSince = new Set<Promise<unknown>>();

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = Promise.allSettled([this.#lastExclusive, ...this.#sharedSince]).then(work);
    this.#lastExclusive = run.catch(() => {});
    this.#sharedSince.clear();
    return run;
  }

  shared<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lastExclusive.then(work);
    const settled = run.catch(() => {});
    this.#sharedSince.add(settled);
    void settled.then(() => this.#sharedSince.delete(settled));
    return run;
  }
}
