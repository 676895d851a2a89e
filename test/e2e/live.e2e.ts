// The console's live channel in Chromium: an open page shows what an engine reports within 2 seconds,
// catches up after the channel drops, and a member removed while watching stops hearing anything.
import type { Browser, Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedAccount, launch, orgPathOf, said, signedIn, unique, LANDED, openPage, openSettled, atBothWidths } from "./support/browser";
import { report } from "./support/engine";
import { joinedAsViewer } from "./support/people";

let browser: Browser;
let page: Page;
const login = unique("live");
const repository = `${login}/shop`;
let engineToken = "";
let orgPath = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [repository]);
  page = await signedIn(browser, login);
  await page.waitForURL(LANDED);
  orgPath = orgPathOf(page);
  await open(page, "Tokens");
  await page.getByLabel("Name").fill("live engine");
  await page.getByRole("button", { name: "Create token" }).click();
  await said(page, "Created live engine.");
  engineToken = (await page.getByTestId("shown-once").textContent())!;
});

afterAll(async () => {
  await browser?.close();
});

async function open(on: Page, section: string) {
  await openPage(on, section);
  await on.getByRole("heading", { level: 1, name: section }).waitFor();
}

const liveStatus = (on: Page) => on.getByRole("status").filter({ hasText: /^(Connecting|Live|Reconnecting|Live updates stopped)/ });
const isLive = (on: Page) =>
  liveStatus(on)
    .filter({ hasText: /^Live$/ })
    .waitFor();

/** What the page shows within the 2 seconds the console promises. */
const within2s = { timeout: 2000 };

describe("a console that changes as engines report", () => {
  it("shows a reported environment on the open Environments page, and a run on the environment's page, each within 2 seconds", async () => {
    await open(page, "Environments");
    await isLive(page);
    const envId = unique("env");
    await report(engineToken, envId, "environment.ready", { repository, branch: "main" });
    await page.getByRole("link", { name: envId }).waitFor(within2s);

    await page.getByRole("link", { name: envId }).click();
    await page.getByRole("heading", { level: 1, name: `Environment ${envId}` }).waitFor();
    await report(engineToken, envId, "run.started", { runId: "live-run-1", name: "smoke" });
    await page.getByTestId("engine-run").filter({ hasText: "live-run-1" }).waitFor(within2s);
    // Nothing to press: the refresh buttons are gone.
    expect(await page.getByRole("button", { name: /^Refresh/ }).count()).toBe(0);
  });

  it("lights what a change added or changed for a moment and says so politely, at desktop and phone widths", async () => {
    // Settled first: a row already there when the page first read its list is no change.
    await openSettled(page, "Environments");
    await isLive(page);
    const row = (envId: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name: envId, exact: true }) });
    await atBothWidths(page, async () => {
      const envId = unique("lit");
      await report(engineToken, envId, "environment.creating", { repository, branch: "main" });
      await row(envId).and(page.locator("tr.lit")).waitFor(within2s);
      await page.getByRole("status").filter({ hasText: "Updated: 1 row added." }).waitFor();
      // The light fades: the row is plain again once the moment passed.
      await page.waitForFunction((id) => {
        const { document } = globalThis as unknown as { document: { querySelectorAll: (s: string) => ArrayLike<{ className: string; textContent: string }> } };
        return Array.from(document.querySelectorAll("tr")).some((tr) => tr.textContent.includes(id) && tr.className === "");
      }, envId);
      // A change to a row already shown lights that row, and is said as a change.
      await report(engineToken, envId, "environment.ready", { repository, branch: "main" });
      await row(envId).getByText("Ready").waitFor(within2s);
      await row(envId).and(page.locator("tr.lit")).waitFor();
      await page.getByRole("status").filter({ hasText: "Updated: 1 row changed." }).waitFor();
    });
  });

  it("catches up after the server drops the channel: what was reported meanwhile shows once it is open again", async () => {
    let toServer = true;
    let current: WebSocketRoute | null = null;
    // Between the page and the Worker. Cut off from the server, the page's socket opens onto nothing
    // and hears nothing, as one whose server went away without a word.
    let reread: Promise<unknown> | null = null;
    await page.routeWebSocket(/\/console\/api\/live/, (socket) => {
      if (toServer) socket.connectToServer();
      // Opening onto nothing, the page reads its list again (as on any open): that read ends before the engine reports.
      else reread = page.waitForResponse((response) => response.url().includes("/rpc/environments.list"));
      current = socket;
    });
    await page.reload();
    await open(page, "Environments");
    await isLive(page);

    toServer = false;
    await current!.close({ code: 1012, reason: "restarting" });
    await liveStatus(page).filter({ hasText: "Reconnecting..." }).waitFor(within2s);
    await isLive(page);
    await reread;
    const envId = unique("missed");
    await report(engineToken, envId, "environment.ready", { repository, branch: "main" });
    await page.waitForTimeout(1000);
    expect(await page.getByRole("link", { name: envId }).count()).toBe(0);

    // The server is back: the channel opens again on its own, and the page reads what it missed.
    toServer = true;
    await current!.close({ code: 1012, reason: "restarting" });
    await page.getByRole("link", { name: envId }).waitFor({ timeout: 4000 });
    await isLive(page);
    await page.unrouteAll();
  });

  it("stops the channel of a member removed while watching: they are told, and hear nothing more", async () => {
    const viewerLogin = unique("watcher");
    const viewer = await joinedAsViewer(browser, page, viewerLogin);
    await viewer.goto(`${orgPath}/environments`);
    await viewer.getByRole("heading", { level: 1, name: "Environments" }).waitFor();
    await isLive(viewer);

    // The owner's Members page was open while the viewer joined: read it afresh.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: viewerLogin });
    await row.getByRole("button", { name: "Remove" }).click();
    await row.getByRole("button", { name: "Yes, remove" }).click();
    await said(page, `Removed ${viewerLogin}.`);

    await liveStatus(viewer).filter({ hasText: "Live updates stopped: Your membership of this organization ended." }).waitFor(within2s);
    const envId = unique("after");
    await report(engineToken, envId, "environment.ready", { repository, branch: "main" });
    await page.waitForTimeout(1000);
    expect(await viewer.getByRole("link", { name: envId }).count()).toBe(0);
    await viewer.context().close();
  });
});
