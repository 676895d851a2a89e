// The environment object's projection rules, without the object (worker/environments/object-projection.ts):
// concurrent batches are applied as one list, and each note goes back to its own batch under its own ref.
import { describe, expect, it } from "vitest";
import { mergeBatches } from "../../worker/environments/object-projection";
import type { ProjectionEvent } from "../../worker/environments/projection";

const event = (ref: number, type = "environment.ready"): ProjectionEvent => ({
  ref,
  type,
  sequence: null,
  at: Date.parse("2026-11-28T00:00:00Z"),
  payload: {},
});

describe("merging the batches an environment object serves together", () => {
  it("numbers the events of every batch in one list, in the batches' order", () => {
    const merged = mergeBatches([[event(4), event(9)], [event(0)]]);
    expect(merged.events.map(({ ref }) => ref)).toEqual([0, 1, 2]);
  });

  it("gives each note back to its batch under the ref the batch sent", () => {
    const merged = mergeBatches([[event(4), event(9)], [event(0)], []]);
    const answers = merged.answer(
      new Map([
        [1, "second of the first batch"],
        [2, "only one of the second"],
      ]),
    );
    expect(answers).toEqual([[{ ref: 9, note: "second of the first batch" }], [{ ref: 0, note: "only one of the second" }], []]);
  });
});
