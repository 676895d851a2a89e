// The cursor of every keyset-paged list (worker/http/paging.ts): opaque, read back only in the shape
// its list gave, anything else refused with 400; a page says whether another follows.
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, KeySeq, KeyTime, KeyUuid, pageOf } from "../../worker/http/paging";
import { Refusal } from "../../worker/http/refusal";

const uuid = "6f1c2b7e-2a34-4c5d-9e8f-0a1b2c3d4e5f";

describe("list cursors", () => {
  it("carry a row's key and read it back in the list's shape", () => {
    const key = ["2026-11-26 04:10:55.123456+00", uuid] as const;
    const cursor = encodeCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, [KeyTime, KeyUuid])).toEqual(key);
    expect(decodeCursor(encodeCursor([42]), [KeySeq])).toEqual([42]);
    expect(decodeCursor(undefined, [KeySeq])).toBeNull();
  });

  it("refuse a cursor that is not one the list gave, with 400", () => {
    const refusals = [
      "not a cursor",
      encodeCursor([0]),
      encodeCursor(["42"]),
      encodeCursor([42, 43]),
      encodeCursor(["yesterday", uuid]),
      btoa("{not json"),
    ].map((cursor) => {
      try {
        decodeCursor(cursor, [KeySeq]);
        return null;
      } catch (error) {
        return error;
      }
    });
    for (const refusal of refusals) expect(refusal).toBeInstanceOf(Refusal);
    expect(() => decodeCursor(encodeCursor([42]), [KeyTime, KeyUuid])).toThrow(Refusal);
    expect((refusals[0] as Refusal).code).toBe("invalid_request");
  });

  it("make a page of rows read with one more than the limit", () => {
    const rows = [{ seq: 5 }, { seq: 4 }, { seq: 3 }];
    const more = pageOf(
      rows,
      2,
      (row) => [row.seq],
      (row) => row.seq,
    );
    expect(more.items).toEqual([5, 4]);
    expect(decodeCursor(more.nextCursor!, [KeySeq])).toEqual([4]);
    expect(
      pageOf(
        rows,
        3,
        (row) => [row.seq],
        (row) => row.seq,
      ),
    ).toEqual({ items: [5, 4, 3], nextCursor: null });
  });
});
