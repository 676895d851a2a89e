// The exports bucket writer against workerd's local R2, which holds multipart uploads to R2's rule:
// every part but the last the same size (at least 5 MiB), the last no larger.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PART_BYTES, r2Sink } from "../../worker/storage/r2-sink";

const bucket = () => env.EXPORTS!;
const sha256 = async (bytes: ArrayBuffer | Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

// Text of mixed widths (1 to 4 bytes a character) in chunks of uneven sizes, as an export appends
// them, so neither chunk nor character boundaries fall on part boundaries.
const chunks = [50_000, 31_337, 77_777, 12_345].map((lines) => "line ü € 😀\n".repeat(lines));

describe("the exports bucket writer", () => {
  it("writes a document of several parts that reads back whole and byte-equal", async () => {
    const key = `test/r2-sink/${crypto.randomUUID()}.ndjson`;
    const encoded = chunks.map((text) => new TextEncoder().encode(text));
    const writer = await r2Sink(bucket()).open(key);
    const expected = new Uint8Array(3.5 * PART_BYTES);
    let written = 0;
    for (let i = 0; ; i++) {
      const bytes = encoded[i % chunks.length]!;
      if (written + bytes.length > expected.length) break;
      await writer.append(chunks[i % chunks.length]!);
      expected.set(bytes, written);
      written += bytes.length;
    }
    await writer.finish();

    const object = await bucket().get(key);
    expect(object!.size).toBe(written);
    expect(written).toBeGreaterThan(3 * PART_BYTES);
    expect(await sha256(await object!.arrayBuffer())).toEqual(await sha256(expected.subarray(0, written)));
    await bucket().delete(key);
    // About 30 MB written to the local bucket and read back: seconds on an idle machine, more on a busy one.
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
