// The owner's billing, model-provider keys and leaving pages, against the suite's stack (billing off,
// a sealing key): refusals in the server's words, a key stored, a data export downloaded, a deletion requested
// with its export link shown once, followed and called off; a viewer sees none of it.
import type { Browser, Page } from "playwright-core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installedAccount,
  launch,
  said,
  screenshot,
  signedIn,
  unique,
  LANDED,
  orgPathOf,
  openPage,
  sidebar,
  settingsNav,
  atBothWidths,
} from "./support/browser";
import { joinedAsViewer } from "./support/people";
import { asOrganization } from "./support/database";

let browser: Browser;
let page: Page;
const login = unique("leaver");
let orgPath = "";

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login);
  page = await signedIn(browser, login);
  await page.waitForURL(LANDED);
  orgPath = orgPathOf(page);
});

afterAll(async () => {
  await browser?.close();
});

/** Rows the suite's stack (billing off, no model traffic) cannot produce, in this test's organization. */
const asThisOrganization = (work: (client: pg.Client, orgId: string) => Promise<unknown>) => asOrganization(orgPath.split("/")[2]!, work);

const open = async (section: string) => {
  await openPage(page, section);
  await page.getByRole("heading", { level: 1, name: section }).waitFor();
};

describe("billing", () => {
  it("shows the free plan and, billing being off, the server's refusal to check out", async () => {
    await open("Billing");
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("free");
    await said(page, /No subscription yet/);
    await page.getByRole("button", { name: "Subscribe to team" }).click();
    await said(page, /^Billing is off on this installation: the operator sets SVC_BILLING_SECRET_KEY/);
    await screenshot(page, "billing");
  });

  it("says, back from the provider's checkout, that the plan follows once the provider confirms", async () => {
    await page.goto("/billing?checkout=done");
    await page.waitForURL(new RegExp(`${orgPath}/billing\\?checkout=done$`));
    await said(page, /The plan changes here as soon as the billing provider confirms the payment/);
  });

  it("once the provider's confirmation makes the plan team, drops the waiting banner and offers managing the subscription", async () => {
    // What the provider's deliveries record (the suite's stack has billing off): an active team subscription, and the plan it grants.
    await asThisOrganization(async (client, orgId) => {
      await client.query(
        `INSERT INTO subscriptions (subscription_id, org_id, customer_id, price_id, status, current_period_end, event_created, state_rank)
         VALUES ($1, $2, 'cus_e2e', 'price_team', 'active', now() + interval '30 days', now(), 2)`,
        [`sub_${orgId}`, orgId],
      );
      await client.query("UPDATE organizations SET plan = 'team' WHERE id = $1", [orgId]);
    });
    // The page, still back from checkout, asks again and sees it without a reload.
    await page.getByTestId("checkout-return").getByText("Thank you: the plan is now team.").waitFor();
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("team");
    await page.getByRole("button", { name: "Manage the subscription" }).waitFor();
    await expect(page.getByRole("button", { name: "Subscribe to team" }).count()).resolves.toBe(0);
    await page.goto("/billing");
    await page.getByRole("button", { name: "Manage the subscription" }).waitFor();
    await expect(page.getByTestId("checkout-return").count()).resolves.toBe(0);
  });
});

describe("model provider keys", () => {
  it("stores a key showing only its last four characters, and sets a budget", async () => {
    await open("Model provider keys");
    const chat = page.getByRole("region", { name: "chat-provider" });
    await chat.getByTestId("chat-provider-key").getByText(/none/).waitFor();
    await chat.getByLabel("Key", { exact: true }).fill("sk-e2e-secret-1234");
    await chat.getByRole("button", { name: "Save chat-provider key" }).click();
    await chat.getByText(/^Stored the key ending 1234/).waitFor();
    await chat.getByTestId("chat-provider-key").getByText("1234").waitFor();
    expect(await chat.getByLabel("Key", { exact: true }).inputValue()).toBe("");
    await page.reload();
    await page.getByTestId("chat-provider-key").getByText("1234").waitFor();
    expect(await page.content()).not.toContain("sk-e2e-secret");
    await chat.getByLabel(/Monthly budget/).fill("5");
    await chat.getByRole("button", { name: "Set chat-provider budget" }).click();
    await chat.getByText(/\$0\.00 spent and \$0\.00 reserved of \$5\.00/).waitFor();
    // Less than a cent spent shows as what it is, not as nothing.
    await asThisOrganization((client, orgId) =>
      client.query(
        `INSERT INTO provider_spend (org_id, provider, month, spent_micros) VALUES ($1, 'chat-provider', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 4200)
         ON CONFLICT (org_id, provider, month) DO UPDATE SET spent_micros = 4200`,
        [orgId],
      ),
    );
    await page.reload();
    await page
      .getByRole("region", { name: "chat-provider" })
      .getByText(/\$0\.0042 spent and \$0\.00 reserved of \$5\.00/)
      .waitFor();
  });

  it("says which API each provider speaks and lists the models it prices", async () => {
    await expect(page.getByTestId("messages-provider-api").textContent()).resolves.toMatch(
      /^Speaks Anthropic's Messages API: .*\/byok\/messages-provider\/v1\/messages/,
    );
    await expect(page.getByTestId("chat-provider-api").textContent()).resolves.toMatch(
      /^Speaks OpenAI's Chat Completions API: .*\/byok\/chat-provider\/v1\/chat\/completions/,
    );
    const chat = page.getByRole("region", { name: "chat-provider" });
    await chat.getByText(/^Priced models \(\d+\)$/).click();
    await expect(chat.getByRole("row", { name: /^gpt-4o-mini / }).textContent()).resolves.toBe("gpt-4o-mini$0.15$0.60");
  });
});

describe("leaving", () => {
  it("downloads the audit log and a data export it takes", async () => {
    await open("Leaving");
    const audit = await page.request.get((await page.getByRole("link", { name: "Download the audit log" }).getAttribute("href"))!);
    expect(audit.status()).toBe(200);
    await said(page, /No export taken yet/);
    await page.getByRole("button", { name: "Take a data export" }).click();
    await said(page, /^Export taken \(\d+(\.\d)? (bytes?|kB|MB)\)\./);
    const download = await page.getByRole("link", { name: "Download", exact: true }).getAttribute("href");
    const answer = await page.request.get(download!);
    expect(answer.status()).toBe(200);
    expect(((await answer.json()) as { organization: unknown }).organization).toBeTruthy();
  });

  it("requests the deletion by its slug, shows the export link once, and lists the next step", async () => {
    const slug = orgPath.split("/")[2]!;
    // Billing is off here: the deletion ends no subscription and waits for none, whatever rows say (test/deletion for billing on).
    await expect(page.getByTestId("deletion-hold").count()).resolves.toBe(0);
    await page.getByLabel(/Type the slug/).fill(slug);
    // Drawn as the destructive action it is, never as the page's primary blue.
    await expect(page.getByRole("button", { name: "Delete this organization" }).getAttribute("class")).resolves.toBe("danger");
    // In the page's one red zone, at desktop and phone widths.
    await atBothWidths(page, async () => {
      const zone = page.getByRole("region", { name: "Delete the organization" });
      await expect(zone.getAttribute("class")).resolves.toBe("danger-zone");
      await expect(
        zone.evaluate(
          (element) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { borderTopColor: string } }).getComputedStyle(element).borderTopColor,
        ),
      ).resolves.toBe(
        await page
          .getByRole("button", { name: "Delete this organization" })
          .evaluate((element) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { color: string } }).getComputedStyle(element).color),
      );
    });
    await page.getByRole("button", { name: "Delete this organization" }).click();
    const link = await page.getByTestId("shown-once").textContent();
    expect(link).toMatch(/\/exports\/deletion\?token=/);
    await expect(page.getByTestId("next-step").textContent()).resolves.toBe("stop");
    await screenshot(page, "leaving");
    await page.reload();
    await expect(page.getByTestId("next-step").textContent()).resolves.toBe("stop");
    await expect(page.getByTestId("shown-once").count()).resolves.toBe(0);
  });

  it("shows the Delete step's progress while it removes the rows", async () => {
    // The step as the sweep leaves it between two invocations (test/deletion drives the real batches).
    const atDelete = (step: string, rows: number) =>
      asThisOrganization((client, orgId) => client.query("UPDATE deletions SET step = $2, rows_removed = $3 WHERE org_id = $1", [orgId, step, rows]));
    await atDelete("delete", 12_345);
    await page.reload();
    await expect(page.getByTestId("next-step").textContent()).resolves.toBe("delete");
    await expect(page.getByTestId("rows-removed").textContent()).resolves.toMatch(/^12\D?345 rows/);
    await atDelete("stop", 0);
    await page.reload();
    await expect(page.getByTestId("rows-removed").count()).resolves.toBe(0);
  });

  it("calls the deletion off", async () => {
    await page.getByRole("button", { name: "Call off the deletion" }).click();
    await page.getByRole("button", { name: "Yes, call off the deletion" }).click();
    await page.getByTestId("deletion").getByText("Called off").waitFor();
    await expect(page.getByTestId("next-step").count()).resolves.toBe(0);
  });
});

describe("a viewer", () => {
  it("sees none of these pages or their actions", async () => {
    const viewer = await joinedAsViewer(browser, page, unique("viewer"));
    await viewer.goto(`${orgPath}/environments`);
    await sidebar(viewer).getByRole("link", { name: "Environments" }).waitFor();
    await sidebar(viewer).getByRole("link", { name: "Settings" }).click();
    await settingsNav(viewer).getByRole("link", { name: "General" }).waitFor();
    for (const hidden of ["Billing", "Leaving", "Model provider keys"])
      await expect(settingsNav(viewer).getByRole("link", { name: hidden }).count()).resolves.toBe(0);
    for (const [section, permission] of [
      ["billing", "billing.manage"],
      ["leaving", "data.export"],
      ["providers", "tokens.manage"],
    ] as const) {
      await viewer.goto(`${orgPath}/${section}`);
      await viewer.getByText(`does not include ${permission}`).waitFor();
      await expect(viewer.getByRole("button").filter({ hasNotText: "Sign out" }).count()).resolves.toBe(0);
    }
  });
});
