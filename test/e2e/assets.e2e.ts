// Workers Assets in front of the Worker: every API prefix reaches the Worker (never the console's
// index.html), and every other address is the console.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_PREFIXES } from "../../worker/console/api-prefixes";
import { base } from "./support/browser";

const CONSOLE_MARK = '<div id="app">';

/** A concrete address under a run_worker_first pattern. */
const under = (pattern: string) => (pattern.endsWith("/*") ? pattern.slice(0, -1) + "probe" : pattern.replace(/\*$/, ""));

describe("Workers Assets", () => {
  it("lists exactly the Worker's API prefixes in wrangler.toml's run_worker_first", () => {
    const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
    const list = /run_worker_first = \[([^\]]*)\]/.exec(toml)![1]!;
    expect([...list.matchAll(/"([^"]+)"/g)].map((match) => match[1])).toEqual([...API_PREFIXES]);
  });

  it.each(API_PREFIXES.map((pattern) => [pattern]))("sends %s to the Worker", async (pattern) => {
    for (const method of ["GET", "POST"]) {
      const response = await fetch(base + under(pattern), { method, headers: { "content-type": "application/json" }, body: method === "POST" ? "{}" : undefined });
      expect(await response.text()).not.toContain(CONSOLE_MARK);
      // Assets would answer a POST 405 with no request id; the Worker always names its request.
      expect(response.headers.get("x-request-id")).toMatch(/\S/);
    }
  });

  it("answers every other address with the console, whose assets load", async () => {
    for (const path of ["/", "/o/some-org/tokens", "/invitations/accept?token=x", "/account"]) {
      const response = await fetch(base + path);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(CONSOLE_MARK);
    }
    const html = await (await fetch(base + "/")).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(base + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
  });
});
