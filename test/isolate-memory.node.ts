// An isolate's memory (worker/isolate-memory.ts) stays within its limit by forgetting the entry
// remembered longest ago, and remembering a key again replaces its value without forgetting another.
import { describe, expect, it } from "vitest";
import { isolateMemory } from "../worker/isolate-memory";

describe("an isolate's memory", () => {
  it("forgets the entry remembered longest ago past its limit", () => {
    const memory = isolateMemory<string, number>(2);
    memory.remember("a", 1);
    memory.remember("b", 2);
    memory.remember("a", 3);
    expect([memory.get("a"), memory.get("b")]).toEqual([3, 2]);
    memory.remember("c", 4);
    expect([memory.get("a"), memory.get("b"), memory.get("c")]).toEqual([undefined, 2, 4]);
    memory.forget("b");
    expect(memory.get("b")).toBeUndefined();
  });
});
