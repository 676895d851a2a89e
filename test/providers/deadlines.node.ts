// Nothing waits on a model provider forever (worker/providers/usage.ts): a provider that accepts the
// call and says nothing fails it once the head's deadline passes, as an unreachable one does (the
// proxy then settles the reservation at nothing and answers provider_unreachable:
// test/providers/proxy.test.ts); a stream that stops mid-answer is broken off after its idle deadline.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlinePassed } from "../../db/deadline";
import { callProvider, readToEnd } from "../../worker/providers/usage";

let silent: Server;
let url: string;

beforeAll(async () => {
  // Takes the request and never answers it.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/messages`;
});

afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

describe("a model provider's deadlines", () => {
  it("fail a call whose answer never comes once the head's deadline passes", async () => {
    const started = Date.now();
    await expect(callProvider(url, { method: "POST", body: "{}" }, 100)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("break off a stream that goes quiet, cancelling it, and read one that ends to its end", async () => {
    let cancelled = false;
    const quiet = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new Uint8Array([1])),
      cancel: () => void (cancelled = true),
    });
    const chunks: number[] = [];
    const broken = await readToEnd(quiet, (chunk) => void chunks.push(chunk.length), 50);
    expect(broken?.error).toBeInstanceOf(DeadlinePassed);
    expect(chunks).toEqual([1]);
    expect(cancelled).toBe(true);
    const ending = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new Uint8Array([1, 2]));
        controller.close();
      },
    });
    expect(await readToEnd(ending, () => {}, 50)).toBeNull();
  });
});
