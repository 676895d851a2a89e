// A new owner's first hour in Chromium, and every console page under axe-core: the organization lands
// on Getting started, an engine token reports its first event and the page turns to "connected", the
// overview shows a failed verdict and an expiring environment; every page the owner's navigation
// offers (the console's SECTIONS as rendered), an environment and the account page: empty in a new
// organization, loading while its data is held back, an alert when its data fails, and each failing on
// a serious or critical axe-core violation.
import axe from "axe-core";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, installedAccount, launch, openPage, said, screenshot, signedIn, unique, atBothWidths, pageWidth } from "./support/browser";
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
  page.on("pageerror", (error) => uncaught.push(`${new URL(page.url()).pathname}: ${error.message}`));
});

afterAll(async () => {
  await browser?.close();
});

const nav = () => page.getByRole("navigation", { name: "Sections" });

/** A page's content has arrived: its heading is there, nothing says "Loading..." and nothing is reloading any more. */
async function settled(): Promise<void> {
  await page.getByRole("heading", { level: 1 }).first().waitFor();
  await page.getByText("Loading...").first().waitFor({ state: "detached" });
  await page.locator("[aria-busy=true]").first().waitFor({ state: "detached" });
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

/** The requests a page's data comes from: tRPC, and the session routes two pages read themselves (your sessions, provider keys). */
const pageData = (url: URL) =>
  url.origin === base && (url.pathname.startsWith("/rpc/") || url.pathname.startsWith("/console/api/") || url.pathname === "/auth/sessions");

/** Holds every answer to the page's data requests until `release` is called: the page's loading state stays on screen. */
async function holding() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(pageData, async (route) => {
    await released;
    await route.continue();
  });
  return async () => {
    release();
    await page.unroute(pageData);
  };
}

const FAILED = "Something went wrong on our side. Try again; if it keeps happening, report the requestId to support.";
const FAILED_ID = "req-failing-on-purpose";

/** Answers every data request with a 500 in tRPC's error shape (its `error.message` is also what the session routes' callers read). */
async function failing() {
  await page.route(pageData, (route) =>
    route.fulfill({
      status: 500,
      headers: { "x-request-id": FAILED_ID },
      contentType: "application/json",
      body: JSON.stringify({
        error: { message: FAILED, code: -32603, data: { code: "INTERNAL_SERVER_ERROR", httpStatus: 500, errorCode: "internal_error" } },
      }),
    }),
  );
  return () => page.unroute(pageData);
}

/** The addresses of the pages the owner's navigation offers, as rendered: the sidebar's, and those under its Settings entry. */
async function sectionPaths(): Promise<string[]> {
  const pathsOf = async (links: Locator) => {
    await links.first().waitFor();
    return links.evaluateAll((anchors) => anchors.map((anchor) => new URL(anchor.getAttribute("href")!, "http://x").pathname));
  };
  const main = await pathsOf(nav().getByRole("link"));
  await page.goto(`${orgPath}/settings`);
  const settings = await pathsOf(page.getByRole("navigation", { name: "Settings" }).getByRole("link"));
  const paths = [...new Set([...main, ...settings])];
  expect(paths.length).toBeGreaterThan(10);
  return paths;
}

/** Uncaught exceptions in the console, with the address they happened at: none is expected anywhere. */
const uncaught: string[] = [];

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

  it("says on every list page of the new organization what to do next", async () => {
    // Pages that are not a list: the checklist, the organization's settings form, the fixed list of
    // model providers (each says "none" for a missing key), the assistant's question form.
    const notAList = new Set(["getting-started", "settings", "providers", "assistant"]);
    const silent: string[] = [];
    const failed: string[] = [];
    for (const path of await sectionPaths()) {
      await page.goto(path);
      await settled();
      const sentences = (await page.locator(".empty").allTextContents()).filter((text) => text.trim().length > 0);
      // A list a new organization already has rows in (its owner's session, the audit log's first entries) shows them instead.
      const rows = await page.locator("main tbody tr").count();
      if (sentences.length === 0 && rows === 0 && !notAList.has(path.split("/").pop()!)) silent.push(path);
      if ((await page.getByRole("alert").count()) > 0) failed.push(path);
    }
    expect(failed).toEqual([]);
    expect(silent).toEqual([]);
    expect(uncaught).toEqual([]);
    await page.goto(`${orgPath}/getting-started`);
  });

  it("shows an empty overview that points back to Getting started", async () => {
    await nav().getByRole("link", { name: "Overview" }).click();
    await said(page, /No engine has reported yet/);
    expect(await violations()).toEqual([]);
  });

  it("turns to connected when an engine token reports its first event", async () => {
    await openPage(page, "Tokens");
    await page.getByLabel("Name").fill("first engine");
    await page.getByRole("button", { name: "Create token" }).click();
    await said(page, "Created first engine.");
    engineToken = (await page.getByTestId("shown-once").textContent())!;
    await nav().getByRole("link", { name: "Getting started" }).click();
    await said(page, /Waiting for the first event/);
    // Waiting, a person looks at the last step, at the foot of the page.
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
    await report(engineToken, "pr-1", "environment.ready", {
      repository,
      branch: "feature/cart",
      started_at: new Date().toISOString(),
      ttl_seconds: 3 * 3600,
    });
    // The page asks again every few seconds: no reload.
    const connected = page.getByRole("status").filter({ hasText: "Connected: pr-1" });
    await connected.waitFor();
    await page.getByRole("heading", { name: /Wait for the first event Done/ }).waitFor();
    // Where the person looks: brought into view from the foot of the page, at desktop and phone widths,
    // and the workflow file folded away, the checklist being history.
    const inView = () =>
      connected.evaluate((element) => {
        const { top, bottom } = (element as unknown as { getBoundingClientRect: () => { top: number; bottom: number } }).getBoundingClientRect();
        return top >= 0 && bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
      });
    await expect(inView()).resolves.toBe(true);
    await expect(page.getByRole("region", { name: /^The workflow file/ }).isVisible()).resolves.toBe(false);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.evaluate("window.scrollTo(0, 0)");
    await connected.waitFor();
    await expect(inView()).resolves.toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "getting-started");
  });

  it("shows the overview a failed verdict, the failed environment by name and the environment expiring soon, with times in the reader's zone and UTC on hover", async () => {
    await report(engineToken, "pr-1", "run.started", { runId: "pr-1-smoke", name: "smoke suite" });
    await report(engineToken, "pr-1", "run.finished", { runId: "pr-1-smoke", outcome: "failed" });
    await report(engineToken, "pr-1", "verdict.recorded", { runId: "pr-1-smoke", name: "login", verdict: "fail", detail: "500 on /login" });
    await report(engineToken, "pr-2", "environment.failed", {
      repository,
      branch: "broken",
      reason: "The database migration timed out after 300 s.",
      workflow_run_url: `https://codehost.example/${repository}/actions/runs/42`,
    });
    await page.getByRole("link", { name: "Go to the overview" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await said(page, /Verdict login failed \(500 on \/login\)/);
    const expiring = page
      .getByRole("region", { name: "Environments" })
      .getByRole("listitem")
      .filter({ hasText: /pr-1 .* expires in/ });
    await expiring.waitFor();
    await expect(expiring.locator("time").getAttribute("title")).resolves.toMatch(/ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
    await expiring.getByRole("link", { name: "pr-1" }).waitFor();
    // What is broken now is named and linked, not only counted, newest first: the environment that failed
    // last, then the environment whose latest run failed before it, each with its age.
    const attention = page.getByTestId("needs-attention").getByRole("listitem");
    await attention
      .filter({ hasText: /^Failed Environment pr-2 \(.*broken\), (now|\d+ seconds? ago)$/ })
      .getByRole("link", { name: "pr-2" })
      .waitFor();
    await expect(attention.allTextContents()).resolves.toEqual([
      expect.stringMatching(/^Failed Environment pr-2 /),
      expect.stringMatching(/^Failed Run smoke suite on pr-1, the latest there, /),
    ]);
    await atBothWidths(page, async (viewport) => {
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
    await screenshot(page, "overview");
    expect(await violations()).toEqual([]);
  });

  it("shows a failed environment what happened and the way forward, at desktop and phone widths: create it again or tear it down, nothing more to run", async () => {
    await page.getByTestId("needs-attention").getByRole("link", { name: "pr-2" }).click();
    const failed = page.getByTestId("env-failed");
    await failed.getByRole("heading", { name: "This environment failed" }).waitFor();
    // Why, in the engine's words, and the workflow run whose log tells more.
    await expect(failed.getByTestId("failure-reason").textContent()).resolves.toBe("The database migration timed out after 300 s.");
    await expect(failed.getByRole("link", { name: "the workflow run that brought it up" }).getAttribute("href")).resolves.toBe(
      `https://codehost.example/${repository}/actions/runs/42`,
    );
    await expect(page.getByRole("button", { name: "Run load" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Run agents" }).count()).resolves.toBe(0);
    await page.getByRole("button", { name: "Tear down" }).waitFor();
    expect(await violations()).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(390);
    await failed.getByRole("button", { name: "Create it again" }).click();
    await failed.getByText(/^Requested environment \S+\./).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("shows every time one way, at desktop and phone widths: how far from now, the exact time on hover and on focus, a passed expiry as expired", async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await report(engineToken, "pr-3", "environment.ready", { repository, branch: "old", started_at: twoDaysAgo, ttl_seconds: 3600 });
    await atBothWidths(page, async (viewport) => {
      await openPage(page, "Environments");
      const row = (envId: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: envId, exact: true }) });
      await row("pr-3").getByText("expired 2 days ago").waitFor();
      const soon = row("pr-1").locator("time");
      await expect(soon.textContent()).resolves.toMatch(/^in (3|2) hours$/);
      // The exact moment in the reader's zone and in UTC: on hover (the title), and shown on focus.
      await expect(soon.getAttribute("title")).resolves.toMatch(/ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$/);
      await soon.focus();
      const shown = await soon.evaluate(
        (time) => (globalThis as unknown as { getComputedStyle: (e: unknown, p: string) => { content: string } }).getComputedStyle(time, "::after").content,
      );
      expect(shown).toMatch(/\(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)/);
      // No column of "none" on every row: a teardown under way is said beside the state.
      await expect(page.getByRole("columnheader", { name: "Teardown" }).count()).resolves.toBe(0);
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
    expect(await violations()).toEqual([]);
  });

  it("goes home to the overview now that an engine has reported", async () => {
    await page.goto(orgPath);
    await page.waitForURL(new RegExp(`${orgPath}/overview$`));
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
  });
});

describe("every page the owner can open", () => {
  // Each walk visits some twenty pages: more than one test's usual minute on a busy machine.
  const WALK = 180_000;
  let paths: string[] = [];

  it(
    "shows it loading while its data is held back, then loaded with no serious or critical axe-core violation",
    async () => {
      await page.goto(`${orgPath}/overview`);
      await settled();
      paths = [...(await sectionPaths()), `${orgPath}/environments/pr-1`, "/account"];
      const found: Record<string, string[]> = {};
      for (const path of paths) {
        const release = await holding();
        await page.goto(path);
        await page.getByRole("heading", { level: 1 }).first().waitFor();
        await page.getByRole("status").filter({ hasText: "Loading..." }).first().waitFor();
        await release();
        await settled();
        const seen = await violations();
        if (seen.length > 0) found[path] = seen;
      }
      expect(found).toEqual({});
      expect(uncaught).toEqual([]);
    },
    WALK,
  );

  it(
    "shows an alert with the server's sentence and the request id when its data fails, and nothing left loading",
    async () => {
      const restore = await failing();
      try {
        for (const path of paths) {
          await page.goto(path);
          await page.getByRole("heading", { level: 1 }).first().waitFor();
          await page.getByRole("alert").filter({ hasText: FAILED }).filter({ hasText: FAILED_ID }).first().waitFor();
          // Every part of the page answered its failure: none is left loading.
          await page.getByText("Loading...").first().waitFor({ state: "detached" });
        }
        // The alert is the same FailureNote on every page: axe-core looks at it once.
        expect(await violations()).toEqual([]);
      } finally {
        await restore();
      }
      expect(uncaught).toEqual([]);
    },
    WALK,
  );

  it("shows the network failure in its own words when the control plane does not answer", async () => {
    await page.route(pageData, (route) => route.abort());
    await page.goto(`${orgPath}/overview`);
    await page.getByRole("alert").filter({ hasText: "The control plane did not answer" }).first().waitFor();
    await page.unroute(pageData);
  });

  it("is usable from the keyboard: the skip link first, then the sections, each with a visible focus ring", async () => {
    await page.goto(`${orgPath}/overview`);
    await settled();
    // In the page (a string: the test's types know no DOM): the focused element's text and its outline's width.
    const focused = () =>
      page.evaluate<{ text: string; outline: number }>(`(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        return { text: (element.textContent || "").trim(), outline: style.outlineStyle === "none" ? 0 : parseFloat(style.outlineWidth) };
      })()`);
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject({ text: "Skip to content" });
    // Tab on to the sidebar's Settings, then to Members in its sub-navigation; every stop on the way shows where the focus is.
    const tabTo = async (text: string) => {
      for (let stops = 0; stops < 30 && (await focused()).text !== text; stops++) {
        await page.keyboard.press("Tab");
        expect((await focused()).outline, `focus ring on "${(await focused()).text}"`).toBeGreaterThan(0);
      }
      expect((await focused()).text).toBe(text);
      await page.keyboard.press("Enter");
    };
    await tabTo("Settings");
    await page.waitForURL(new RegExp(`${orgPath}/settings$`));
    await page.getByRole("navigation", { name: "Settings" }).waitFor();
    await tabTo("Members");
    await page.waitForURL(new RegExp(`${orgPath}/members$`));
    await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
  });

  it(
    "finds none on any of those pages in the dark scheme either",
    async () => {
      await page.emulateMedia({ colorScheme: "dark" });
      try {
        const found: Record<string, string[]> = {};
        for (const path of paths) {
          await page.goto(path);
          await settled();
          const seen = await violations();
          if (seen.length > 0) found[path] = seen;
        }
        expect(found).toEqual({});
      } finally {
        await page.emulateMedia({ colorScheme: null });
      }
    },
    WALK,
  );
});
