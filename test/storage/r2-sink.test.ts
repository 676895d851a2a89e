// The exports bucket writer against workerd's local R2, which holds multipart uploads to R2's rule:
// every part but the last the same size (at least 5 MiB), the last no larger.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PART_BYTES, r2Sink } from "../../worker/storage/r2-sink";

const bucket = () => env.EXPORTS!;

// Text of mixed widths (1 to 4 bytes a character) in chunks of uneven sizes, as an export appends
// them, so neither chunk nor character boundaries fall on part boundaries.
const chunks = [50_000, 31_337, 77_777, 12_345].map((lines) => "line ü € 😀\n".repeat(lines));

describe("the exports bucket writer", () => {
  it("writes a document of several parts that reads back whole and byte-equal", async () => {
    const key = `test/r2-sink/${crypto.randomUUID()}.ndjson`;
    const encoded = chunks.map((text) => new TextEncoder().encode(text));
    const writer = await r2Sink(bucket()).open(key);
    // Which chunk went where: the read-back is compared as it streams, so the test never holds the
    // document whole (a runtime near its memory limit spends its time collecting garbage).
    const order: Uint8Array[] = [];
    let written = 0;
    for (let i = 0; ; i++) {
      const bytes = encoded[i % chunks.length]!;
      if (written + bytes.length > 3.5 * PART_BYTES) break;
      await writer.append(chunks[i % chunks.length]!);
      order.push(bytes);
      written += bytes.length;
    }
    await writer.finish();

    const object = await bucket().get(key);
    expect(object!.size).toBe(written);
    expect(written).toBeGreaterThan(3 * PART_BYTES);
    let chunk = 0;
    let at = 0;
    let read = 0;
    let firstDifference: number | null = null;
    for await (const piece of object!.body as unknown as AsyncIterable<Uint8Array>) {
      for (let i = 0; i < piece.length && firstDifference === null; i++) {
        if (chunk >= order.length || piece[i] !== order[chunk]![at]) firstDifference = read + i;
        else if (++at === order[chunk]!.length) [chunk, at] = [chunk + 1, 0];
      }
      read += piece.length;
    }
    expect({ firstDifference, read, chunksRead: chunk }).toEqual({ firstDifference: null, read: written, chunksRead: order.length });
    await bucket().delete(key);
  }, 60_000);

  it("writes a document of exactly whole parts, and an empty one", async () => {
    const whole = `test/r2-sink/${crypto.randomUUID()}.ndjson`;
    const writer = await r2Sink(bucket()).open(whole);
    const part = "x".repeat(PART_BYTES / 2);
    for (let i = 0; i < 4; i++) await writer.append(part);
    await writer.finish();
    expect((await bucket().head(whole))!.size).toBe(2 * PART_BYTES);

    const empty = `test/r2-sink/${crypto.randomUUID()}.ndjson`;
    const nothing = await r2Sink(bucket()).open(empty);
    await nothing.finish();
    expect(await (await bucket().get(empty))!.text()).toBe("");
    await bucket().delete([whole, empty]);
  });

  it("leaves no object when the upload is aborted", async () => {
    const key = `test/r2-sink/${crypto.randomUUID()}.ndjson`;
    const writer = await r2Sink(bucket()).open(key);
    await writer.append("x".repeat(PART_BYTES + 1));
    await writer.abort();
    expect(await bucket().head(key)).toBeNull();
  });
});
