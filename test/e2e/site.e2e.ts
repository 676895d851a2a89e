// The site host under `wrangler dev` beside the control plane, in a real headless Chromium: the contact
// and application forms served from the site's origin post cross-origin to the control plane, so the
// browser itself enforces CORS. The site's origin (SVC_SITE_ORIGIN) succeeds; the same page opened from
// a foreign origin (localhost instead of 127.0.0.1) is blocked by the browser and nothing is stored.
import { execFile } from "node:child_process";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base, launch, screenshot, unique } from "./support/browser";

const { site } = inject("e2e");
const foreignSite = site.replace("127.0.0.1", "localhost");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

async function fillContact(origin: string, company: string) {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const consoleErrors: string[] = [];
  page.on("console", (message) => void (message.type() === "error" && consoleErrors.push(message.text())));
  await page.goto(`${origin}/contact`);
  await page.getByLabel("Name *").fill("Ada Lovelace");
  await page.getByLabel("Work e-mail *").fill("ada@example.com");
  await page.getByLabel("Company *").fill(company);
  await page.getByLabel("Team size").selectOption("51-200");
  await page.getByLabel("What would you like to talk about?").fill("The enterprise plan, please.");
  return { page, consoleErrors };
}

describe("the site host", () => {
  it("sends the contact form from the site's origin to the control plane, cross-origin", async () => {
    const { page } = await fillContact(site, unique("acme"));
    const posted = page.waitForResponse((response) => response.url() === `${base}/v1/leads` && response.request().method() === "POST");
    await page.getByRole("button", { name: "Send" }).click();
    const response = await posted;
    expect(response.status()).toBe(201);
    expect(response.headers()["access-control-allow-origin"]).toBe(site);
    await page.getByText("Thank you: we received it").waitFor();
    await screenshot(page, "site-contact-sent");
    await page.context().close();
  });

  it("is blocked by the browser when the same page comes from a foreign origin", async () => {
    const { page, consoleErrors } = await fillContact(foreignSite, unique("evil"));
    const failed = page.waitForEvent("requestfailed", (request) => request.url() === `${base}/v1/leads`);
    await page.getByRole("button", { name: "Send" }).click();
    await failed;
    await page.getByText("The form could not be sent").waitFor();
    // Chromium's own words: the preflight got no grant for this origin, so the post was never sent.
    expect(consoleErrors.join("\n")).toMatch(/CORS policy/);
    await page.context().close();
    // What the browser was told: 403 with no grant.
    const preflight = await fetch(`${base}/v1/leads`, { method: "OPTIONS", headers: { origin: foreignSite, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("sends the application form from the site's origin", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${site}/apply`);
    await page.getByLabel("Name *").fill("Grace Hopper");
    await page.getByLabel("E-mail *").fill("grace@example.com");
    await page.getByLabel("Code-host login").fill("grace-h");
    await page.getByLabel("What would you use it for? *").fill(unique("previews for every pull request"));
    const posted = page.waitForResponse((response) => response.url() === `${base}/v1/applications` && response.request().method() === "POST");
    await page.getByRole("button", { name: "Apply" }).click();
    expect((await posted).status()).toBe(201);
    await page.getByText("Thank you: we received it").waitFor();
    await page.context().close();
  });

  it("serves its pages, an HTML 404 page, /api and the published files", async () => {
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    const pricing = await page.goto(`${site}/pricing`);
    expect(pricing?.status()).toBe(200);
    // Its pages talk only to themselves and the control plane (site/build/build.ts, _headers).
    expect(pricing?.headers()["content-security-policy"]).toContain(`connect-src 'self' ${base}`);
    expect(pricing?.headers()["x-content-type-options"]).toBe("nosniff");
    for (const plan of ["Free", "Team", "Enterprise"]) await page.getByRole("heading", { name: plan, exact: true }).waitFor();
    const docs = await page.goto(`${site}/docs/api`);
    expect(docs?.status()).toBe(200);
    await page.getByRole("heading", { name: "API reference" }).waitFor();
    const missing = await page.goto(`${site}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(missing?.headers()["content-type"]).toMatch(/text\/html/);
    await page.getByRole("heading", { name: "Nothing is here" }).waitFor();
    await page.context().close();

    const api = await fetch(`${site}/api`);
    expect(await api.json()).toEqual({ endpoints: [] });
    const unknown = await fetch(`${site}/api/nothing`);
    expect(unknown.status).toBe(404);
    expect(Object.keys((await unknown.json()) as object).sort()).toEqual(["code", "message", "resolution"]);
    for (const file of ["/openapi.json", "/errors.v1.json", "/lint-findings.v1.json"]) {
      const response = await fetch(site + file);
      expect(response.status, file).toBe(200);
      await response.json();
    }
  });

  it("passes the deploy check against the local control plane (npm run site:check)", async () => {
    const result = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(process.execPath, ["--import", "tsx", "site/check.ts", base], { cwd: new URL("../../", import.meta.url).pathname }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, out: stdout + stderr }),
      );
    });
    expect(result.out).toMatch(/agree/);
    expect(result.code).toBe(0);
  });
});
