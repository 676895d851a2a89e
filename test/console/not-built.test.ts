// Without a console build, every page address answers a page saying how to build it (never a blank
// page or a 500), and the API keeps answering as before.
import { describe, expect, it } from "vitest";
import { callWith } from "../support/http";
import { statusAndCode } from "../support/refusals";

// What the Worker sees when Workers Assets hold no index.html: no usable ASSETS binding.
const NOT_BUILT = { ASSETS: undefined };

describe("a control plane whose console is not built", () => {
  it.each([["/"], ["/o/acme/environments"], ["/invitations/accept?token=abc"], ["/account"]])("answers %s with the console-not-built page", async (path) => {
    const response = await callWith(NOT_BUILT, path);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("The console is not built");
    expect(html).toContain("npm run build:console");
  });

  it("keeps answering its API routes, and unknown API addresses stay JSON 404s", async () => {
    expect((await callWith(NOT_BUILT, "/health")).status).toBe(200);
    for (const path of ["/v1/nothing-here", "/auth/nothing-here", "/rpc"]) {
      const response = await callWith(NOT_BUILT, path);
      expect(statusAndCode(response)).toEqual([404, "not_found"]);
      expect(response.headers.get("content-type")).toContain("application/json");
    }
    expect(statusAndCode(await callWith(NOT_BUILT, "/o/acme/environments", { method: "POST" }))).toEqual([404, "not_found"]);
  });
});
