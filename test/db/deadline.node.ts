// The deadlines' arithmetic (db/deadline.ts): what a wait gets, and what it raises when it runs out.
// The deadlines at work, against a frozen server and terminated connections, are test/faults/.
import { describe, expect, it } from "vitest";
import { answeringWithin, budget, DEADLINES, DeadlinePassed, within } from "../../db/deadline";

describe("deadlines", () => {
  it("give a wait its own cap outside a request, and what is left of the request's answer inside one", async () => {
    expect(budget(DEADLINES.statementMs)).toBe(DEADLINES.statementMs);
    await answeringWithin(3_000, async () => {
      expect(budget(DEADLINES.statementMs)).toBeLessThanOrEqual(3_000);
      expect(budget(DEADLINES.statementMs)).toBeGreaterThan(2_900);
      expect(budget(1_000)).toBe(1_000);
    });
  });

  it("lift the request's deadline once its answer is given: a streamed body's statements keep their own caps", async () => {
    let after: () => number = () => 0;
    await answeringWithin(10, async (answered) => {
      answered();
      after = () => budget(DEADLINES.statementMs);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(after()).toBe(DEADLINES.statementMs);
  });

  it("never leave a wait less than a millisecond once the answer is overdue", async () => {
    await answeringWithin(1, async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(budget(DEADLINES.statementMs)).toBe(1);
    });
  });

  it("raise DeadlinePassed naming what did not answer, and swallow that call's later failure", async () => {
    let fail: (error: Error) => void = () => {};
    const never = new Promise<never>((_, reject) => (fail = reject));
    const raised = await within(never, 10, "A database statement").catch((error: unknown) => error);
    expect(raised).toBeInstanceOf(DeadlinePassed);
    expect(raised).toMatchObject({ what: "A database statement", ms: 10, message: "A database statement did not answer within 10 ms." });
    // Failing after the deadline is no unhandled rejection (vitest fails the run on one).
    fail(new Error("late"));
    await new Promise((resolve) => setTimeout(resolve, 5));
  });

  it("answer what came in time, and its failure as it is", async () => {
    expect(await within(Promise.resolve(7), 1_000, "x")).toBe(7);
    await expect(within(Promise.reject(new RangeError("no")), 1_000, "x")).rejects.toBeInstanceOf(RangeError);
  });

  it("answer a request within the engines' 10 seconds: a statement's cap and an object's wait fit in the answer's", () => {
    expect(DEADLINES.answerMs).toBeLessThan(10_000);
    expect(DEADLINES.statementMs).toBeLessThan(DEADLINES.answerMs);
    expect(DEADLINES.objectMs).toBeLessThan(DEADLINES.answerMs);
    expect(DEADLINES.endMs).toBeLessThan(30_000);
  });
});
