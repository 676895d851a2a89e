// The fake mail provider answers a malformed request with 400 and keeps serving.
import { describe, expect, inject, it } from "vitest";

const send = (body: string) => fetch(`${inject("mailBase")}/emails`, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("the fake mail provider", () => {
  it("answers 400 to a body that is not JSON or not a message, and still records good ones", async () => {
    for (const bad of ["{not json", "null", JSON.stringify({ from: "a@example.test", to: "b@example.test", subject: "s", text: "t" })]) {
      expect((await send(bad)).status).toBe(400);
    }
    const to = `fake-${crypto.randomUUID().slice(0, 8)}@example.test`;
    expect((await send(JSON.stringify({ from: "a@example.test", to: [to], subject: "still up", text: "t" }))).status).toBe(200);
    const recorded = (await (await fetch(`${inject("mailBase")}/_fake/emails?to=${encodeURIComponent(to)}`)).json()) as Array<{ subject: string }>;
    expect(recorded.map((mail) => mail.subject)).toEqual(["still up"]);
  });
});
