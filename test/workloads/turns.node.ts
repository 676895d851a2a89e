// The environment object's turns (durable-objects/turns.ts): claims side by side, a projection or the
// alarm alone, in arrival order.
import { describe, expect, it } from "vitest";
import { Turns } from "../../durable-objects/turns";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("turns", () => {
  it("let shared calls run side by side, and an exclusive one wait for those before it and hold back those after", async () => {
    const turns = new Turns();
    const log: string[] = [];
    const first = gate();
    const second = gate();
    const a = turns.shared(async () => {
      log.push("a starts");
      await first.opened;
      log.push("a ends");
    });
    const b = turns.shared(async () => {
      log.push("b starts");
      await second.opened;
      log.push("b ends");
    });
    const x = turns.exclusive(async () => {
      log.push("x runs");
    });
    const c = turns.shared(async () => {
      log.push("c runs");
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(["a starts", "b starts"]);
    second.open();
    await b;
    expect(log).toEqual(["a starts", "b starts", "b ends"]);
    first.open();
    await Promise.all([a, x, c]);
    expect(log).toEqual(["a starts", "b starts", "b ends", "a ends", "x runs", "c runs"]);
  });

  it("go on after a call that failed, which fails only its own caller", async () => {
    const turns = new Turns();
    const failed = turns.exclusive(async () => {
      throw new Error("no database");
    });
    const sharedFailed = turns.shared(async () => {
      throw new Error("no database either");
    });
    await expect(failed).rejects.toThrow("no database");
    await expect(sharedFailed).rejects.toThrow("no database either");
    await expect(turns.exclusive(async () => "next")).resolves.toBe("next");
    await expect(turns.shared(async () => "after")).resolves.toBe("after");
  });
});
