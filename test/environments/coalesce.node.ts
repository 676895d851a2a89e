// Projections that wait for the environment object's turn are applied together
// (durable-objects/coalesce.ts), and each batch still gets its own answer.
import { describe, expect, it } from "vitest";
import { Coalescer } from "../../durable-objects/coalesce";

describe("the coalescer", () => {
  it("serves the calls that arrive while the first waits for its turn in one go, each its own answer", async () => {
    const served: number[][] = [];
    let turn!: () => void;
    const turnComes = new Promise<void>((resolve) => (turn = resolve));
    const coalescer = new Coalescer<number, string>(
      (drain) => void turnComes.then(drain),
      async (inputs) => {
        served.push(inputs);
        return inputs.map((input) => `answer ${input}`);
      },
    );
    const answers = Promise.all([1, 2, 3].map((input) => coalescer.call(input)));
    turn();
    expect(await answers).toEqual(["answer 1", "answer 2", "answer 3"]);
    expect(served).toEqual([[1, 2, 3]]);
    // Once a drain has taken the calls, a new one asks for a turn of its own.
    expect(await coalescer.call(4)).toBe("answer 4");
    expect(served).toEqual([[1, 2, 3], [4]]);
  });

  it("fails every call of a drain that fails, and serves the next ones", async () => {
    let fail = true;
    const coalescer = new Coalescer<number, number>(
      (drain) => void Promise.resolve().then(drain),
      async (inputs) => {
        if (fail) throw new Error("the database went away");
        return inputs;
      },
    );
    const failed = await Promise.allSettled([coalescer.call(1), coalescer.call(2)]);
    expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await coalescer.call(3)).toBe(3);
  });
});
