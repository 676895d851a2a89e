// A new owner's first hour in Chromium, and every console page under axe-core: the organization lands
// on Getting started, an engine token reports its first event and the page turns to "connected", the
// overview shows a failed verdict and an expiring environment; both pages' loading, empty and error
// states; then every page the owner's navigation offers (the console's SECTIONS as rendered), an
// environment and the account page, each failing on a serious or critical violation.
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, installedAccount, launch, said, screenshot, signedIn, unique } from "./support/browser";
import { report } from "./support/engine";

let browser: Browser;
let page: Page;
const login = unique("first");
const repository = `${login}/shop`;
let orgPath = "";
let engineToken = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [repository]);
  page = await signedIn(browser, login);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
});

afterAll(async () => {
  await browser?.close();
});

const nav = () => page.getByRole("navigation", { name: "Sections" });

/** A page's content has arrived: its heading is there and nothing says "Loading..." any more. */
async function settled(): Promise<void> {
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  await page.getByText("Loading...").first().waitFor({ state: "detached" });
}

/** The serious and critical axe-core violations of the page as it is now, one line each. */
async function violations(): Promise<string[]> {
  // Evaluated through the browser's debugging protocol: the console's CSP (script-src 'self') refuses an inline script tag.
  await page.evaluate(axe.source);
  const results = await page.evaluate<axe.AxeResults>('axe.run(document, { resultTypes: ["violations"] })');
  expect(results.passes.length).toBeGreaterThan(0); // axe ran its rules on this page
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/** Holds every answer of one procedure until `release` is called: the page's loading state stays on screen. */
async function holding(procedure: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const matches = (url: URL) => url.pathname === `/rpc/${procedure}`;
  await page.route(matches, async (route) => {
    await released;
    await route.continue();
  });
  return async () => {
    release();
    await page.unroute(matches);
  };
}

describe("a new owner's first hour", () => {
  it("lands on Getting started: the App installed on their repository, the rest not done yet", async () => {
    await page.waitForURL(/\/o\/[^/]+\/getting-started$/);
    orgPath = new URL(page.url()).pathname.replace(/\/getting-started$/, "");
    await page.getByRole("heading", { level: 1, name: "Getting started" }).waitFor();
    await page.getByRole("heading", { name: /Install the App on your repositories Done/ }).waitFor();
    await page.getByRole("heading", { name: /Wait for the first event Not done/ }).waitFor();
    await said(page, repository);
    await said(page, /Waiting for the first event/);
    await expect(page.getByRole("region", { name: /The workflow file/ }).textContent()).resolves.toContain(`SVC_CONTROL_PLANE: ${base}`);
    expect(await violations()).toEqual([]);
  });

  it("copies the workflow, and is told so", async () => {
    await page.getByRole("button", { name: "Copy the workflow" }).click();
    await said(page, "Copied the workflow to the clipboard.");
    await expect(page.evaluate<string>("navigator.clipboard.readText()")).resolves.toContain(`SVC_CONTROL_PLANE: ${base}`);
  });

  it("shows an empty overview that points back to Getting started", async () => {
    await nav().getByRole("link", { name: "Overview" }).click();
    await said(page, /No engine has reported yet/);
    expect(await violations()).toEqual([]);
  });

  it("turns to connected when an engine token reports its first event", async () => {
    await nav().getByRole("link", { name: "Tokens" }).click();
    await page.getByLabel("Name").fill("first engine");
    await page.getByRole("button", { name: "Create token" }).click();
    await said(page, "Created first engine.");
    engineToken = (await page.getByTestId("shown-once").textContent())!;
    await nav().getByRole("link", { name: "Getting started" }).click();
    await said(page, /Waiting for the first event/);
    await report(engineToken, "pr-1", "environment.ready", {
      repository,
      branch: "feature/cart",
      started_at: new Date().toISOString(),
      ttl_seconds: 3 * 3600,
    });
    // The page asks again every few seconds: no reload.
    await page.getByRole("status").filter({ hasText: "Connected: pr-1" }).waitFor();
    await page.getByRole("heading", { name: /Wait for the first event Done/ }).waitFor();
    await screenshot(page, "getting-started");
  });

  it("shows the overview a failed verdict and the environment expiring soon, with times in the reader's zone and UTC on hover", async () => {
    await report(engineToken, "pr-1", "run.started", { runId: "pr-1-smoke", name: "smoke suite" });
    await report(engineToken, "pr-1", "run.finished", { runId: "pr-1-smoke", outcome: "failed" });
    await report(engineToken, "pr-1", "verdict.recorded", { runId: "pr-1-smoke", name: "login", verdict: "fail", detail: "500 on /login" });
    await page.getByRole("link", { name: "Go to the overview" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await said(page, /Verdict login failed \(500 on \/login\)/);
    const expiring = page
      .getByRole("region", { name: "Environments" })
      .getByRole("listitem")
      .filter({ hasText: /pr-1 .* expires in/ });
    await expiring.waitFor();
    await expect(expiring.locator("time").getAttribute("title")).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await expiring.getByRole("link", { name: "pr-1" }).waitFor();
    await screenshot(page, "overview");
    expect(await violations()).toEqual([]);
  });

  it("goes home to the overview now that an engine has reported", async () => {
    await page.goto(orgPath);
    await page.waitForURL(new RegExp(`${orgPath}/overview$`));
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
  });

  for (const [section, procedure, heading] of [
    ["overview", "overview.summary", "Overview"],
    ["getting-started", "overview.gettingStarted", "Getting started"],
  ] as const) {
    it(`shows ${heading} loading, then an error when the control plane does not answer`, async () => {
      const release = await holding(procedure);
      await page.goto(`${orgPath}/${section}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await page.getByRole("status").filter({ hasText: "Loading..." }).waitFor();
      await release();
      await settled();

      const refused = (url: URL) => url.pathname === `/rpc/${procedure}`;
      await page.route(refused, (route) => route.abort());
      await page.goto(`${orgPath}/${section}`);
      await page.getByRole("alert").filter({ hasText: "The control plane did not answer" }).waitFor();
      expect(await violations()).toEqual([]);
      await page.unroute(refused);
    });
  }
});

describe("accessibility", () => {
  it("finds no serious or critical axe-core violation on any page the owner can open", async () => {
    await page.goto(`${orgPath}/overview`);
    await settled();
    const sections = await nav()
      .getByRole("link")
      .evaluateAll((links) => links.map((link) => new URL(link.getAttribute("href")!, "http://x").pathname));
    expect(sections.length).toBeGreaterThan(10);
    const found: Record<string, string[]> = {};
    for (const path of [...sections, `${orgPath}/environments/pr-1`, "/account"]) {
      await page.goto(path);
      await settled();
      const seen = await violations();
      if (seen.length > 0) found[path] = seen;
    }
    expect(found).toEqual({});
  });

  it("finds none on Getting started and the overview in the dark scheme either", async () => {
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      for (const section of ["getting-started", "overview"]) {
        await page.goto(`${orgPath}/${section}`);
        await settled();
        expect({ section, violations: await violations() }).toEqual({ section, violations: [] });
      }
    } finally {
      await page.emulateMedia({ colorScheme: null });
    }
  });
});
