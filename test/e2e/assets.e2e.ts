// Workers Assets in front of the Worker: every API prefix reaches the Worker (never the console's
// index.html), and every other address is the console.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { API_PREFIXES } from "../../worker/console/api-prefixes";
import { contentSecurityPolicy, FRAME_OPTIONS } from "../../worker/http/page-policy";
import { base, installedAccount, launch, signedIn, unique } from "./support/browser";

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
      const response = await fetch(base + under(pattern), {
        method,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
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

  it("answers every other method on an address outside the API prefixes with the 404 Refusal, and a GET there with the page", async () => {
    for (const path of ["/no/such/address", "/o/some-org/tokens", "/account", "/assets/nothing.js"]) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const response = await fetch(base + path, { method, headers: { "content-type": "application/json" }, body: "{}" });
        expect({ path, method, status: response.status, code: response.headers.get("x-svc-error-code") }).toEqual({
          path,
          method,
          status: 404,
          code: "not_found",
        });
        expect(response.headers.get("x-request-id")).toMatch(/\S/);
        expect(await response.json()).toEqual({ error: "Nothing is served at this address." });
      }
    }
    for (const path of ["/no/such/address", "/o/some-org/tokens"]) {
      const page = await fetch(base + path);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain(CONSOLE_MARK);
    }
  });

  it("gives the console's pages the Worker's page policy through console/public/_headers", async () => {
    const file = readFileSync(new URL("../../console/public/_headers", import.meta.url), "utf8");
    expect(file).toContain(`  Content-Security-Policy: ${contentSecurityPolicy()}\n`);
    expect(file).toContain(`  X-Frame-Options: ${FRAME_OPTIONS}\n`);
    for (const path of ["/", "/o/some-org/tokens", "/account"]) {
      const response = await fetch(base + path);
      expect(await response.text()).toContain(CONSOLE_MARK);
      expect({ path, policy: response.headers.get("content-security-policy"), frames: response.headers.get("x-frame-options") }).toEqual({
        path,
        policy: contentSecurityPolicy(),
        frames: "DENY",
      });
    }
    // The file configures Assets; it is not served.
    expect(await (await fetch(base + "/_headers")).text()).toContain(CONSOLE_MARK);
  });
});

/** Every Content-Security-Policy violation the page reports, as Chromium logs it. */
function violations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) seen.push(message.text());
  });
  return seen;
}

describe("the console under its content security policy (Chromium)", () => {
  it("signs in, shows the console with its styles and leaves no policy violation; so does the operator portal", async () => {
    const browser = await launch();
    try {
      const login = unique("policy");
      await installedAccount(login);
      const page = await signedIn(browser, login, { startAt: "/" });
      const seen = violations(page);
      await page.reload();
      await page.getByRole("link", { name: "Sign in with the code host" }).click();
      await page.getByRole("heading", { level: 1, name: "Getting started" }).waitFor();
      // The console's stylesheet (inserted by its script) applies.
      expect(await page.evaluate<string>('getComputedStyle(document.body).getPropertyValue("--line").trim()')).not.toBe("");
      // The portal in a browser of its own (a customer's session is refused there).
      const portal = await browser.newPage({ baseURL: base });
      const portalSeen = violations(portal);
      await portal.goto("/admin");
      await portal.getByRole("heading", { name: "Operator sign-in" }).waitFor();
      expect([...seen, ...portalSeen]).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
