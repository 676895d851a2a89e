// An owner's day in the console, in Chromium: sign in through the code host, create an engine token
// (shown once), see the engine's environment, tear it down and see the engine confirm it, start a
// workload run and see an engine claim it, verify the audit log, and be told why the last owner
// cannot close their account.
import type { Browser, Page } from "playwright-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { installedAccount, launch, said, screenshot, signedIn, unique } from "./support/browser";
import { claimRun, report } from "./support/engine";

/** A claim as the command line made it before claims needed proof, written as the application role acting as the organization. */
async function legacyClaim(slug: string, repository: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("e2eDatabase").app });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT set_config('app.lookup_org_slug', $1, true)", [slug]);
    const { rows } = await client.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug]);
    await client.query("SELECT set_config('app.org_id', $1, true)", [rows[0]!.id]);
    await client.query("INSERT INTO repository_claims (org_id, repository, source) VALUES ($1, $2, 'cli')", [rows[0]!.id, repository]);
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

let browser: Browser;
let page: Page;
const login = unique("owner");
let orgPath = "";
let engineToken = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [`${login}/shop`]);
  page = await signedIn(browser, login);
});

afterAll(async () => {
  await browser?.close();
});

const open = async (section: string) => {
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: section }).click();
  await page.getByRole("heading", { level: 1, name: section }).waitFor();
};

describe("the owner", () => {
  it("signs in through the code host and lands in their new organization, which has nothing yet", async () => {
    await page.waitForURL(/\/o\/[^/]+\/environments$/);
    orgPath = new URL(page.url()).pathname.replace(/\/environments$/, "");
    await page.getByRole("heading", { name: "Environments" }).waitFor();
    await said(page, /No environments yet/);
    const nav = page.getByRole("navigation", { name: "Sections" });
    for (const section of ["Tokens", "Members", "Sessions", "Audit log", "Settings"])
      await expect(nav.getByRole("link", { name: section }).count()).resolves.toBe(1);
  });

  it("creates an engine token, shown once", async () => {
    await open("Tokens");
    await said(page, /No tokens yet/);
    await page.getByLabel("Name").fill("ci engine");
    await page.getByRole("button", { name: "Create token" }).click();
    await said(page, "Created ci engine.");
    engineToken = (await page.getByTestId("shown-once").textContent())!;
    expect(engineToken.length).toBeGreaterThan(20);
    await page.getByRole("row", { name: /ci engine/ }).waitFor();
    await screenshot(page, "tokens");
    await page.reload();
    await page.getByRole("row", { name: /ci engine/ }).waitFor();
    await expect(page.getByText(engineToken).count()).resolves.toBe(0);
  });

  it("sees the environment its engine reports, with its preview address", async () => {
    await report(engineToken, "pr-7", "environment.queued", {
      repository: `${login}/shop`,
      branch: "feature/cart",
      pull_request: 7,
      preview_urls: ["https://pr-7.preview.example/"],
    });
    await report(engineToken, "main-1", "environment.ready", { repository: `${login}/shop`, branch: "main" });
    await open("Environments");
    await page.getByRole("link", { name: "pr-7" }).waitFor();
    await screenshot(page, "environments");
    // A phone in the dark: the same page at 360 px wide with the system's dark scheme.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "environments-360-dark");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByRole("link", { name: "pr-7" }).click();
    await page.getByRole("link", { name: "https://pr-7.preview.example/" }).waitFor();
    await expect(page.getByTestId("teardown").textContent()).resolves.toBe("none");
  });

  it("starts load and agent runs on it, each reporting what the code host said", async () => {
    await page.getByRole("button", { name: "Run load" }).click();
    await said(page, /^Load run requested\. The code host refused to start the workflow \(404\)/);
    await page.getByLabel(/Agent workflows/).fill("checkout, search");
    await page.getByRole("button", { name: "Run agents" }).click();
    await said(page, /^Agent run requested\./);
  });

  it("asks the code host to create an environment for a branch", async () => {
    await open("Environments");
    await page.getByLabel("Repository (owner/name)").fill(`${login}/shop`);
    await page.getByLabel("Branch").fill("feature/search");
    await page.getByRole("button", { name: "Create environment" }).click();
    await said(page, /^Requested environment feature-search-[0-9a-f]{8}\./);
    await page.getByRole("link", { name: "pr-7" }).click();
  });

  it("tears it down and sees the engine confirm it", async () => {
    await page.getByRole("button", { name: "Tear down" }).click();
    await page.getByRole("button", { name: "Yes, tear down" }).click();
    await said(page, /Teardown requested\./);
    await page
      .getByTestId("teardown")
      .getByText(/requested, waiting for the engine/)
      .waitFor();
    await report(engineToken, "pr-7", "environment.torn_down");
    await page.getByRole("button", { name: "Refresh", exact: true }).click();
    await page.getByTestId("teardown").getByText("confirmed by the engine").waitFor();
    await expect(page.getByTestId("env-state").textContent()).resolves.toBe("torn_down");
    // A torn-down environment offers no more work.
    await expect(page.getByRole("button", { name: "Tear down" }).count()).resolves.toBe(0);
    await screenshot(page, "environment");
  });

  it("defines a workload, starts a run, and sees an engine claim it", async () => {
    await open("Workloads");
    await said(page, /No workloads defined yet/);
    await page.getByRole("form", { name: "Define workload" }).getByLabel("Name").fill("smoke");
    await page.getByRole("button", { name: "Define workload" }).click();
    await said(page, "Defined smoke (version 1).");
    await page.getByLabel("Environment").selectOption("main-1");
    await page.getByRole("button", { name: "Start run" }).click();
    await said(page, /Run of smoke v1 recorded on main-1/);
    const run = page.getByRole("row", { name: /smoke v1/ });
    await run.getByText("not held").waitFor();
    const claimed = await claimRun(engineToken, "main-1");
    expect(claimed.status).toBe(200);
    await page.getByRole("button", { name: "Refresh runs" }).click();
    await run.getByText(/held until/).waitFor();
    await expect(run.getByTestId("run-state").textContent()).resolves.toBe("accepted");
    await screenshot(page, "workloads");
  });

  it("sees no repository claim yet, and is told how to make one", async () => {
    await open("Repository claims");
    await said(page, /No repository is claimed/);
  });

  it("sees a claim made before claims needed proof marked unproven, with how to prove it, and written to the audit log", async () => {
    await legacyClaim(orgPath.split("/").pop()!, `${login}/legacy`);
    await page.reload();
    const row = page.getByRole("row", { name: new RegExp(`${login}/legacy`) });
    await row.getByText("Unproven", { exact: true }).waitFor();
    await row.getByText(/its workflows get no engine tokens/).waitFor();
    await row.getByText(/claiming it again/).waitFor();
    await screenshot(page, "claims-unproven");
    await open("Audit log");
    await page.getByRole("cell", { name: "repository_claim.unproven" }).waitFor();
  });

  it("reads the audit log and verifies its chain", async () => {
    await open("Audit log");
    await page.getByRole("cell", { name: "token.created" }).waitFor();
    await page.getByRole("button", { name: "Verify the chain" }).click();
    await said(page, /^Intact: \d+ entries/);
  });

  it("revokes the token", async () => {
    await open("Tokens");
    const row = page.getByRole("row", { name: /ci engine/ });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await row.getByText(/^revoked/).waitFor();
    expect((await claimRun(engineToken, "main-1")).status).toBe(401);
  });

  it("is told, in the server's words, why the last owner cannot close their account", async () => {
    await page.getByRole("link", { name: login }).click();
    await page.getByRole("heading", { level: 1, name: "Your account" }).waitFor();
    await page.getByText("(this browser)").waitFor();
    await page.getByLabel(/to confirm/).fill(login);
    await page.getByRole("button", { name: "Close my account" }).click();
    const slug = orgPath.split("/")[2]!;
    await page.getByRole("alert").getByText(`You are the last owner of ${slug}; make someone else an owner first.`).waitFor();
    await screenshot(page, "account-refused");
  });
});
