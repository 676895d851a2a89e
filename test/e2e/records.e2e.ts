// Engine records, the workload lifecycle and runtimes in Chromium: an engine reports runs, verdicts,
// artifacts and egress decisions, which the environment page shows (one run opened, decisions
// filtered); a workload gets an exploration that is promoted, a run cancelled and retried, the
// workload archived; a runtime is registered, labelled, seen by the engine and removed.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedAccount, launch, said, screenshot, signedIn, unique, LANDED, openSettled, atBothWidths, pageWidth } from "./support/browser";
import { report } from "./support/engine";

let browser: Browser;
let page: Page;
const login = unique("records");
let engineToken = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [`${login}/shop`]);
  page = await signedIn(browser, login);
  await page.waitForURL(LANDED);
});

afterAll(async () => {
  await browser?.close();
});

const open = (section: string) => openSettled(page, section);

describe("engine records, workload lifecycle and runtimes", () => {
  it("gets an engine token", async () => {
    await open("Tokens");
    await page.getByLabel("Name").fill("records engine");
    await page.getByRole("button", { name: "Create token" }).click();
    await said(page, "Created records engine.");
    engineToken = (await page.getByTestId("shown-once").textContent())!;
  });

  it("registers and labels a runtime", async () => {
    await open("Runtimes");
    await said(page, /No runtimes registered/);
    await page.getByRole("form", { name: "Register runtime" }).getByLabel("Name").fill("linux-large");
    await page
      .getByRole("form", { name: "Register runtime" })
      .getByLabel(/Labels/)
      .fill("gpu, region=eu");
    await page.getByRole("button", { name: "Register runtime" }).click();
    await said(page, "Registered linux-large.");
    const row = page.getByTestId("runtime").filter({ hasText: "linux-large" });
    await row.getByRole("form", { name: "Add label to linux-large" }).getByLabel("Label").fill("arm64");
    await row.getByRole("button", { name: "Add label to linux-large" }).click();
    await said(page, "Labelled arm64.");
    await row.getByRole("button", { name: "Remove label gpu" }).click();
    // The label leaves the list, its button (and the sentence beside it) with it.
    await row.getByRole("button", { name: "Remove label gpu" }).waitFor({ state: "detached" });
    await expect(row.getByTestId("runtime-labels").textContent()).resolves.toMatch(/^arm64.*region=eu/);
    await expect(row.getByTestId("runtime-seen").textContent()).resolves.toBe("never");
  });

  it("shows the runs an engine reports on the environment page, one run's verdicts and artifacts, and its egress decisions", async () => {
    await report(engineToken, "main-1", "environment.ready", { repository: `${login}/shop`, branch: "main" });
    const readyReported = Date.now();
    await report(engineToken, "main-1", "run.started", { runId: "nightly-1", name: "nightly suite", runtime: "linux-large" });
    await report(engineToken, "main-1", "verdict.recorded", { runId: "nightly-1", name: "login", verdict: "pass" });
    await report(engineToken, "main-1", "verdict.recorded", { runId: "nightly-1", name: "checkout", verdict: "fail", detail: "500 on /cart" });
    await report(engineToken, "main-1", "artifact.stored", {
      runId: "nightly-1",
      name: "trace.zip",
      sizeBytes: 2048,
      digest: "sha256:abcd",
      location: "s3://acme/trace.zip",
    });
    await report(engineToken, "main-1", "artifact.stored", {
      runId: "nightly-1",
      name: "report.html",
      sizeBytes: 204_800,
      digest: "sha256:ef01",
      location: "https://artifacts.example/nightly-1/report.html",
    });
    await report(engineToken, "main-1", "run.finished", { runId: "nightly-1", outcome: "failed", durationMs: 105_000 });
    await report(engineToken, "main-1", "network.decision", {
      runId: "nightly-1",
      host: "api.payments.example",
      port: 443,
      decision: "denied",
      rule: "default-deny",
    });
    await report(engineToken, "main-1", "network.decision", { host: "db.internal", port: 5432, decision: "allowed", rule: "allow-db" });

    await open("Environments");
    await page.getByRole("link", { name: "main-1" }).click();
    const run = page.getByTestId("engine-run").filter({ hasText: "nightly-1" });
    await expect(run.getByTestId("run-outcome").textContent()).resolves.toBe("Failed");
    // Last heard from counts what the engine reported after the environment's own event: its runs.
    const heard = await page.locator('dt:text-is("Last heard from") + dd time').getAttribute("datetime");
    expect(Date.parse(heard!)).toBeGreaterThan(readyReported);
    // How long it took in units a person reads, not "105.0 s".
    await run.getByText("1 min 45 s").waitFor();
    await run.getByRole("button", { name: "Details" }).click();
    // The details open under the run's own row, across the table.
    await run.locator("xpath=following-sibling::tr[1]").getByRole("region", { name: "Run nightly-1" }).waitFor();
    await expect(run.getByRole("button", { name: "Hide" }).getAttribute("aria-expanded")).resolves.toBe("true");
    await page
      .getByTestId("verdicts")
      .getByText(/Failed checkout: 500 on \/cart/)
      .waitFor();
    // What failed comes first, in the danger tone; what passed after it, in another colour and mark, at
    // desktop and phone widths.
    const verdicts = page.getByTestId("verdicts");
    await expect(verdicts.getByRole("listitem").first().textContent()).resolves.toMatch(/^Failed checkout/);
    await atBothWidths(page, async () => {
      // In the page (the test's types know no DOM): each mark's class, colour and the shape of its mark.
      const marks = await verdicts.locator(".status").evaluateAll((statuses) =>
        statuses.map((status) => {
          const { getComputedStyle: style } = globalThis as unknown as {
            getComputedStyle: (element: unknown, pseudo?: string) => { color: string; transform: string };
          };
          return { tone: (status as { className: string }).className, color: style(status).color, mark: style(status, "::before").transform };
        }),
      );
      expect(marks.map(({ tone }) => tone)).toEqual(["status status-danger", "status status-ok"]);
      expect(marks[0]!.color).not.toBe(marks[1]!.color);
      expect(marks[0]!.mark).not.toBe(marks[1]!.mark);
    });
    // Sizes in units a person reads; a location on the web is a link, any other (s3://) its text.
    const artifacts = page.getByTestId("artifacts");
    await artifacts.getByText(/trace\.zip \(2 kB/).waitFor();
    await artifacts.getByText(/report\.html \(204\.8 kB/).waitFor();
    await expect(artifacts.getByRole("link").count()).resolves.toBe(1);
    await expect(artifacts.getByRole("link", { name: "https://artifacts.example/nightly-1/report.html" }).getAttribute("href")).resolves.toBe(
      "https://artifacts.example/nightly-1/report.html",
    );

    await expect(page.getByTestId("decision").count()).resolves.toBe(2);
    await page.getByRole("region", { name: "Network decisions" }).getByLabel("Show").selectOption("denied");
    await page.getByTestId("decision").filter({ hasText: "db.internal" }).waitFor({ state: "detached" });
    await expect(page.getByTestId("decision").count()).resolves.toBe(1);
    await page.getByTestId("decision").getByText("default-deny").waitFor();
    // Each decision names its run and says its decision as a status, so the denial ties to the failed check.
    await expect(page.getByTestId("decision").textContent()).resolves.toMatch(/nightly-1.*api\.payments\.example.*443.*Denied/);
    await expect(page.getByTestId("decision").locator(".status").getAttribute("class")).resolves.toBe("status status-danger");
    await screenshot(page, "environment-records");

    // A page holds 20 decisions; "Show more" appends the next page.
    for (let n = 0; n < 20; n += 1) await report(engineToken, "main-1", "network.decision", { host: `deny-${n}.example`, port: 443, decision: "denied" });
    const decisions = page.getByRole("region", { name: "Network decisions" });
    await decisions.getByLabel("Show").selectOption("");
    // The newest reported shows: the list read after the last report (one read while they arrived may
    // still be on the page, holding fewer of them).
    await page.getByTestId("decision").filter({ hasText: "deny-19.example" }).waitFor();
    await page.getByTestId("decision").filter({ hasText: "deny-0.example" }).waitFor();
    await expect(page.getByTestId("decision").count()).resolves.toBe(20);
    await decisions.getByRole("button", { name: "Show more" }).click();
    await page.getByTestId("decision").filter({ hasText: "db.internal" }).waitFor();
    await expect(page.getByTestId("decision").count()).resolves.toBe(22);
    await decisions.getByRole("button", { name: "Show more" }).waitFor({ state: "detached" });

    // The engine's run named the registered runtime: its last seen time shows now.
    await open("Runtimes");
    await expect(page.getByTestId("runtime").filter({ hasText: "linux-large" }).getByTestId("runtime-seen").textContent()).resolves.not.toBe("never");
  });

  it("tells why a check failed, at desktop and phone widths: the run's denied connections beside it, and a proposal to allow one, prefilled", async () => {
    await atBothWidths(page, async (viewport) => {
      await open("Environments");
      await page.getByRole("link", { name: "main-1", exact: true }).click();
      const run = page.getByTestId("engine-run").filter({ hasText: "nightly-1" });
      await run.getByRole("button", { name: "Details" }).click();
      const why = page.getByTestId("why-failed");
      await expect(why.getByRole("paragraph").textContent()).resolves.toBe("checkout failed; 1 connection denied in this run: api.payments.example:443.");
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
    await page.getByTestId("why-failed").getByRole("link", { name: "Propose allowing api.payments.example:443" }).click();
    await page.getByRole("heading", { level: 1, name: "Proposals" }).waitFor();
    const form = page.getByRole("form", { name: "Propose egress policy" });
    await expect(form.getByLabel("Summary").inputValue()).resolves.toBe("Allow api.payments.example:443 (denied in run nightly-1)");
    await expect(form.getByLabel(/^Allowed hosts/).inputValue()).resolves.toMatch(/(^|\n)api\.payments\.example:443$/);
  });

  it("narrows an environment's runs to those still running or of one outcome, at desktop and phone widths", async () => {
    await open("Environments");
    await page.getByRole("link", { name: "main-1", exact: true }).click();
    const runs = page.getByRole("region", { name: "Runs" });
    await atBothWidths(page, async () => {
      await runs.getByLabel("Show").selectOption("failed");
      await page.getByTestId("engine-run").filter({ hasText: "nightly-1" }).waitFor();
      await runs.getByLabel("Show").selectOption("passed");
      await runs.getByText(/^No run of this environment matches/).waitFor();
      await runs.getByLabel("Show").selectOption("");
      await page.getByTestId("engine-run").filter({ hasText: "nightly-1" }).waitFor();
    });
  });

  it("adds an exploration to a workload and promotes it", async () => {
    await open("Workloads");
    const name = page.getByRole("form", { name: "Define workload" }).getByLabel("Name");
    await name.fill("smoke");
    await expect(name.inputValue()).resolves.toBe("smoke");
    await page.getByRole("button", { name: "Define workload" }).click();
    await said(page, "Defined smoke (version 1).");
    await page.getByRole("button", { name: "Manage smoke" }).click();
    const detail = page.getByRole("region", { name: "Workload" });
    await detail.getByRole("checkbox", { name: /Exploration/ }).check();
    await detail.getByRole("button", { name: "Add version" }).click();
    await said(page, "Added exploration v2; promote it to make it current.");
    await expect(page.getByTestId("current-version").textContent()).resolves.toBe("v1");
    await detail.getByRole("button", { name: "Promote v2" }).click();
    await said(page, "Version 2 is now current.");
    await page.getByTestId("current-version").getByText("v2").waitFor();
  });

  it("starts a run, cancels it at once and retries it", async () => {
    await page.getByLabel("Environment").selectOption("main-1");
    await page.getByRole("button", { name: "Start run" }).click();
    await said(page, /Run of smoke v2 recorded on main-1/);
    // The runs table's rows (the workloads table has a row for smoke too).
    const runs = () =>
      page
        .getByRole("row")
        .filter({ has: page.getByTestId("run-state") })
        .filter({ hasText: "smoke v2" });
    await runs().getByRole("button", { name: "Cancel run" }).click();
    await said(page, "Cancelled.");
    await runs().getByTestId("run-state").getByText("Cancelled").waitFor();
    await runs().getByRole("button", { name: "Retry run" }).click();
    await runs().getByTestId("run-state").getByText("Requested").waitFor();
    await expect(runs().count()).resolves.toBe(2);
    await screenshot(page, "workload-lifecycle");
  });

  // A workload of its own (a retry of this test archives another one).
  it("archives a workload: it leaves the list and shows when asked", async () => {
    const name = `old-${crypto.randomUUID().slice(0, 8)}`;
    await open("Workloads");
    await page.getByRole("form", { name: "Define workload" }).getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Define workload" }).click();
    await said(page, `Defined ${name} (version 1).`);
    await page.getByRole("button", { name: `Manage ${name}` }).click();
    await page.getByRole("button", { name: "Archive workload" }).click();
    await page.getByRole("button", { name: "Yes, archive workload" }).click();
    await said(page, `${name} is archived.`);
    const row = page.getByTestId("workload").filter({ hasText: name });
    await row.waitFor({ state: "detached" });
    await page.getByRole("checkbox", { name: "Show archived workloads" }).check();
    await row.getByText("(archived)").waitFor();
  });

  it("narrows the environments to a state and to what is typed", async () => {
    await open("Environments");
    const narrow = page.getByRole("search", { name: "Narrow the environments" });
    await narrow.getByLabel("State").selectOption("failed");
    await said(page, /^No environment matches/);
    await narrow.getByLabel("State").selectOption("");
    await narrow.getByLabel(/^Find/).fill("MAIN-");
    await page.getByRole("link", { name: "main-1" }).waitFor();
    await narrow.getByLabel(/^Find/).fill("no-such-thing");
    await said(page, /^No environment matches/);
    await narrow.getByLabel(/^Find/).fill("");
    await page.getByRole("link", { name: "main-1" }).waitFor();
  });

  it("marks the field a refusal is about, checks what it can before the round trip, and draws the server's names as code", async () => {
    await open("Workloads");
    const define = page.getByRole("form", { name: "Define workload" });
    await define.getByLabel("Name").fill("broken");
    await define.getByLabel(/Compiled form/).fill('{\n  "steps": ["load"],\n  retries: 2\n}');
    await define.getByRole("button", { name: "Define workload" }).click();
    await define
      .getByRole("alert")
      .getByText(/^The compiled form is not JSON: line 3, column 3 \(/)
      .waitFor();
    await expect(define.getByLabel(/Compiled form/).getAttribute("aria-invalid")).resolves.toBe("true");

    await open("Environments");
    const create = page.getByRole("form", { name: "Create environment" });
    // Checked by the browser before anything is sent: not owner/name.
    await create.getByLabel(/Repository/).fill("just-a-name");
    await create.getByLabel("Branch").fill("main");
    await create.getByRole("button", { name: "Create environment" }).click();
    await expect(create.getByLabel(/Repository/).evaluate((input) => (input as unknown as { validity: { valid: boolean } }).validity.valid)).resolves.toBe(
      false,
    );
    await expect(create.getByRole("alert").count()).resolves.toBe(0);
    // Refused by the server, which names the field: marked, described by the sentence, its name drawn as code.
    await create.getByLabel(/Repository/).fill(`${login}/shop`);
    await create.getByLabel("Branch").fill("two words");
    await create.getByRole("button", { name: "Create environment" }).click();
    const refusal = create.getByRole("alert");
    await refusal.getByText(/^The input is not valid:/).waitFor();
    await expect(refusal.textContent()).resolves.not.toContain("`");
    await expect(refusal.locator("code").textContent()).resolves.toBe("branch");
    const branch = create.getByLabel("Branch");
    await expect(branch.getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(branch.getAttribute("aria-describedby")).resolves.toBe(await refusal.getAttribute("id"));
  });

  it("fits a phone: at 390 px no page of the organization scrolls sideways, a table's rows stack with each cell named, and each title comes before much navigation", async () => {
    await page.goto("/");
    await page.waitForURL(LANDED);
    const orgPath = new URL(page.url()).pathname.replace(/\/[^/]+$/, "");
    const linksOf = (navigation: string) =>
      page
        .getByRole("navigation", { name: navigation })
        .getByRole("link")
        .evaluateAll((anchors) => anchors.map((anchor) => (anchor as unknown as { getAttribute: (name: string) => string }).getAttribute("href")));
    const sections = await linksOf("Sections");
    await page.goto(`${orgPath}/settings`);
    await page.getByRole("navigation", { name: "Settings" }).waitFor();
    const paths = [...new Set([...sections, ...(await linksOf("Settings")), `${orgPath}/environments/main-1`])];
    await page.setViewportSize({ width: 390, height: 844 });
    const wide: string[] = [];
    const low: string[] = [];
    for (const path of paths) {
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      await page.getByText("Loading...").first().waitFor({ state: "detached" });
      await page.locator("[aria-busy=true]").first().waitFor({ state: "detached" });
      // In the page (the test's types know no DOM): how wide the document is, and what sticks out of the
      // window outside any scrolling box (a table's own), to name in the failure.
      const { width, culprits } = await page.evaluate<{ width: number; culprits: string[] }>(`(() => {
        const clipped = (element) => { for (let at = element.parentElement; at; at = at.parentElement) if (getComputedStyle(at).overflowX !== "visible") return true; return false; };
        const out = [...document.querySelectorAll("body *")].filter((element) => element.getBoundingClientRect().right > innerWidth + 1 && !clipped(element));
        return { width: document.documentElement.scrollWidth, culprits: out.slice(-3).map((element) => element.tagName.toLowerCase() + (element.className ? "." + element.className : "") + " " + Math.round(element.getBoundingClientRect().right)) };
      })()`);
      if (width > 390) wide.push(`${path}: ${width} px (${culprits.join(", ")})`);
      // The page's own title comes before a thumb's length of navigation.
      const titleTop = await page
        .getByRole("heading", { level: 1 })
        .first()
        .evaluate((heading) => (heading as unknown as { getBoundingClientRect: () => { top: number } }).getBoundingClientRect().top);
      if (titleTop > 260) low.push(`${path}: title at ${Math.round(titleTop)} px`);
    }
    // The navigation is a menu behind the header's Menu button, closed again once a page is chosen.
    const menu = page.getByRole("button", { name: "Menu", exact: true });
    const sectionsNav = page.getByRole("navigation", { name: "Sections" });
    await expect(menu.getAttribute("aria-expanded")).resolves.toBe("false");
    await expect(sectionsNav.isVisible()).resolves.toBe(false);
    await menu.click();
    await expect(menu.getAttribute("aria-expanded")).resolves.toBe("true");
    await sectionsNav.getByRole("link", { name: "Environments" }).click();
    await page.getByRole("heading", { level: 1, name: "Environments" }).waitFor();
    await expect(sectionsNav.isVisible()).resolves.toBe(false);
    // A list's rows stack: each row a block as wide as the screen allows, each cell after its column's name.
    await page.goto(`${orgPath}/environments`);
    const cell = page.getByRole("row").filter({ hasText: "main-1" }).locator('td[data-label="State"]');
    const stacked = await cell.evaluate((td) => {
      const { getComputedStyle: style } = globalThis as unknown as {
        getComputedStyle: (element: unknown, pseudo?: string) => { display: string; content: string };
      };
      return { display: style(td).display, label: style(td, "::before").content };
    });
    expect(stacked).toEqual({ display: "block", label: '"State: "' });
    // A run's duration in units a person reads, stacked under its column's name on a phone too.
    await page.goto(`${orgPath}/environments/main-1`);
    await page.getByTestId("engine-run").filter({ hasText: "nightly-1" }).locator('td[data-label="Took"]').getByText("1 min 45 s").waitFor();
    await page.goto(`${orgPath}/environments`);
    await cell.waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    // At desktop width the sections are always there, and no Menu button.
    await expect(menu.isVisible()).resolves.toBe(false);
    await expect(sectionsNav.isVisible()).resolves.toBe(true);
    await expect(
      cell.evaluate((td) => (globalThis as unknown as { getComputedStyle: (element: unknown) => { display: string } }).getComputedStyle(td).display),
    ).resolves.toBe("table-cell");
    expect(wide).toEqual([]);
    expect(low).toEqual([]);
  });

  it("removes the runtime; runs that named it still show the name", async () => {
    await open("Runtimes");
    await page.getByRole("button", { name: "Remove linux-large" }).click();
    await page.getByRole("button", { name: "Yes, remove linux-large" }).click();
    // Its row leaves the list (with the sentence beside its button); the removed one shows when asked.
    await said(page, /No runtimes registered/);
    await page.getByRole("checkbox", { name: "Show removed runtimes" }).check();
    await page
      .getByTestId("runtime")
      .getByText(/removed/)
      .waitFor();
    await open("Environments");
    await page.getByRole("link", { name: "main-1" }).click();
    await page.getByTestId("engine-run").filter({ hasText: "nightly-1" }).getByText("(not registered)").waitFor();
  });

  it("shows each check across environments, at desktop and phone widths: where it failed, how often, and where it passed", async () => {
    await report(engineToken, "side-1", "environment.ready", { repository: `${login}/shop`, branch: "side" });
    await report(engineToken, "side-1", "run.started", { runId: "side-run", name: "nightly suite" });
    await report(engineToken, "side-1", "verdict.recorded", { runId: "side-run", name: "checkout", verdict: "fail" });
    await report(engineToken, "side-1", "verdict.recorded", { runId: "side-run", name: "login", verdict: "fail" });
    await atBothWidths(page, async (viewport) => {
      await openSettled(page, "Checks");
      const sentences = page.getByTestId("checks").getByRole("listitem");
      // The most recently failed first: login failed only on side-1 and passed on main-1; checkout failed on both.
      await expect(sentences.allTextContents()).resolves.toEqual([
        expect.stringMatching(/^login failed on side-1 in the last 7 days; passed on main-1\. Last failed /),
        expect.stringMatching(/^checkout failed on main-1 and side-1 in the last 7 days\. Last failed /),
      ]);
      await sentences.first().getByRole("link", { name: "main-1" }).waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(viewport.width);
    });
  });
});
