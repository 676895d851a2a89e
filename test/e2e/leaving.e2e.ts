// The owner's billing, model-provider keys and leaving pages, against the suite's stack (billing off,
// a sealing key): refusals in the server's words, a key stored, a data export downloaded, a deletion requested
// with its export link shown once, followed and called off; a viewer sees none of it.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedAccount, launch, said, screenshot, signedIn, unique, LANDED, orgPathOf } from "./support/browser";
import { joinedAsViewer } from "./support/people";

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

const open = async (section: string) => {
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: section }).click();
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
    await said(page, /The plan will update here once the billing provider confirms/);
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
  });
});

describe("leaving", () => {
  it("downloads the audit log and a data export it takes", async () => {
    await open("Leaving");
    const audit = await page.request.get((await page.getByRole("link", { name: "Download the audit log" }).getAttribute("href"))!);
    expect(audit.status()).toBe(200);
    await said(page, /No export taken yet/);
    await page.getByRole("button", { name: "Take a data export" }).click();
    await said(page, /^Export taken \(\d+ bytes\)\./);
    const download = await page.getByRole("link", { name: "Download", exact: true }).getAttribute("href");
    const answer = await page.request.get(download!);
    expect(answer.status()).toBe(200);
    expect(((await answer.json()) as { organization: unknown }).organization).toBeTruthy();
  });

  it("requests the deletion by its slug, shows the export link once, and lists the next step", async () => {
    const slug = orgPath.split("/")[2]!;
    await page.getByLabel(/Type the slug/).fill(slug);
    await page.getByRole("button", { name: "Delete this organization" }).click();
    const link = await page.getByTestId("shown-once").textContent();
    expect(link).toMatch(/\/exports\/deletion\?token=/);
    await expect(page.getByTestId("next-step").textContent()).resolves.toBe("stop");
    await screenshot(page, "leaving");
    await page.reload();
    await expect(page.getByTestId("next-step").textContent()).resolves.toBe("stop");
    await expect(page.getByTestId("shown-once").count()).resolves.toBe(0);
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
    const nav = viewer.getByRole("navigation", { name: "Sections" });
    await nav.getByRole("link", { name: "Environments" }).waitFor();
    for (const hidden of ["Billing", "Leaving", "Model provider keys"]) await expect(nav.getByRole("link", { name: hidden }).count()).resolves.toBe(0);
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
