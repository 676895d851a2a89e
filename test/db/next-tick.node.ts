// process.nextTick as a promise job (db/next-tick.ts): what the driver's callbacks still get (their
// arguments, their turn, an uncaught exception when they throw), with a stand-in for workerd's own.
import { describe, expect, it } from "vitest";
import { nextTickAsPromiseJob } from "../../db/next-tick";

/** A nextTick that records what it was handed instead of scheduling it. */
function recording() {
  const handed: unknown[][] = [];
  const owner = { nextTick: (...args: unknown[]) => void handed.push(args) };
  return { owner, handed };
}

describe("process.nextTick as a promise job", () => {
  it("runs each callback with its arguments, after the code that scheduled it, in turn with promise jobs", async () => {
    const { owner, handed } = recording();
    nextTickAsPromiseJob(owner);
    const order: string[] = [];
    owner.nextTick((a: string, b: number) => order.push(`tick ${a} ${b}`), "x", 1);
    void Promise.resolve().then(() => order.push("promise"));
    owner.nextTick(() => order.push("tick 2"));
    order.push("sync");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(["sync", "tick x 1", "promise", "tick 2"]);
    expect(handed).toEqual([]);
  });

  it("throws a callback's error again through the runtime's own nextTick, an uncaught exception as before", async () => {
    const { owner, handed } = recording();
    nextTickAsPromiseJob(owner);
    const failure = new Error("from a callback");
    owner.nextTick(() => {
      throw failure;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(handed).toHaveLength(1);
    expect(() => (handed[0]![0] as () => void)()).toThrow(failure);
  });

  it("leaves what is not a function to the runtime's own, which refuses it", () => {
    const { owner, handed } = recording();
    nextTickAsPromiseJob(owner);
    owner.nextTick("not a function", 1);
    expect(handed).toEqual([["not a function", 1]]);
  });

  it("is installed once, however often the driver is loaded", async () => {
    const { owner } = recording();
    nextTickAsPromiseJob(owner);
    const installed = owner.nextTick;
    nextTickAsPromiseJob(owner);
    expect(owner.nextTick).toBe(installed);
    let runs = 0;
    owner.nextTick(() => runs++);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(1);
  });
});
