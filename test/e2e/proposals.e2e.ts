// Proposals in the console: a member proposes an egress change that loosens it (marked so) and cannot
// decide it; the owner approves it and the App opens the pull request with the exact block; a refused
// pull request shows the code host's words and opens on retry; a fork's commit waits for the owner's
// approval of that exact commit before its check credential is granted.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  base,
  codehost,
  fake,
  installedAccount,
  launch,
  said,
  screenshot,
  signedIn,
  signInFrom,
  unique,
  LANDED,
  orgPathOf,
  openSettled,
  atBothWidths,
} from "./support/browser";
import { report } from "./support/engine";

let browser: Browser;
let owner: Page;
let member: Page;
const login = unique("proposer");
const repository = `${login}/shop`;

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, unknown> | null };
};
const identityToken = async (claims: Record<string, unknown> = {}) => (await fake("/_fake/oidc/token", { claims: { repository, ...claims } })).token as string;
const received = async () =>
  (await (await fetch(`${codehost}/_fake/git/received?repository=${encodeURIComponent(repository)}`)).json()) as {
    commits: Array<{ path: string; content: string }>;
    pulls: Array<{ number: number; title: string }>;
  };

async function joinedAsMember(): Promise<Page> {
  const memberLogin = unique("member");
  await fake("/_fake/users", { login: memberLogin, email: `${memberLogin}@example.test` });
  await openSettled(owner, "Members");
  await owner.getByLabel("Email address").fill(`${memberLogin}@example.test`);
  await owner.getByRole("form", { name: "Invite" }).getByLabel("Role").selectOption("member");
  await owner.getByRole("button", { name: "Invite", exact: true }).click();
  await said(owner, /send them the link/);
  const link = (await owner.getByTestId("shown-once").textContent())!;
  const page = await signedIn(browser, memberLogin, { startAt: link });
  await signInFrom(page, "Sign in to accept");
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await said(page, /You joined .* as member\./);
  return page;
}

let orgPath = "";
let engineToken = "";

const openProposals = async (page: Page) => {
  await page.goto(`${orgPath}/proposals`);
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Proposals" }).waitFor();
  await page.getByRole("heading", { level: 1, name: "Proposals" }).waitFor();
};

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login, [repository]);
  owner = await signedIn(browser, login);
  await owner.waitForURL(LANDED);
  orgPath = orgPathOf(owner);
  // The repository's first identity exchange claims it for the organization holding the App's installation.
  const exchanged = await post(`${base}/v1/auth/codehost-oidc`, { token: await identityToken() });
  expect(exchanged.status).toBe(200);
  engineToken = exchanged.body!.token as string;
  member = await joinedAsMember();
});

afterAll(async () => {
  await browser?.close();
});

describe("proposals", () => {
  it("a member's loosening egress proposal is marked, left to someone else, and opened as a pull request once the owner approves", async () => {
    await openProposals(member);
    const form = member.getByRole("form", { name: "Propose egress policy" });
    // Side by side, a text area of four lines and one of three keep their labels level at the top.
    const top = async (name: RegExp) => (await form.getByText(name).boundingBox())!.y;
    expect(Math.abs((await top(/^Allowed hosts/)) - (await top(/^Denied hosts/)))).toBeLessThan(2);
    // What engines were refused lately: the proposal's effect is replayed against it before anyone decides.
    for (const envId of ["pr-1", "pr-1", "pr-2"])
      await report(engineToken, envId, "network.decision", { host: "api.payments.example", port: 443, decision: "denied" });
    await form.getByLabel("Summary").fill("Allow the payment API");
    await form.getByLabel(/Allowed hosts/).fill("api.payments.example:443");
    await form.getByRole("button", { name: "Propose egress policy" }).click();
    await said(member, /it loosens egress \(allows api\.payments\.example:443\)/);
    const row = member.getByTestId("proposal-Allow the payment API");
    await atBothWidths(member, async () => {
      await expect(row.getByTestId("egress-effect").textContent()).resolves.toBe(
        "Replayed against the last 30 days' 3 requests: would have allowed 3 requests from 2 environments (api.payments.example:443); newly denies none.",
      );
    });
    await row.getByText("Loosens egress").waitFor();
    await row.getByText("Yours: someone else decides it.").waitFor();
    expect(await row.getByRole("button", { name: "Approve" }).count()).toBe(0);

    await openProposals(owner);
    const ownerRow = owner.getByTestId("proposal-Allow the payment API");
    await ownerRow.getByText("Loosens egress").waitFor();
    await screenshot(owner, "proposals");
    await ownerRow.getByRole("button", { name: "Approve" }).click();
    await said(owner, /^Approved; pull request #\d+ opened\./);
    const block = "egress:\n  default: deny\n  allow:\n    - host: api.payments.example\n      ports: [443]\n  deny: []\n";
    await owner.getByTestId("egress-block").getByText("api.payments.example").waitFor();
    expect(await owner.getByTestId("egress-block").textContent()).toBe(block);
    const got = await received();
    expect(got.commits).toEqual([expect.objectContaining({ path: ".svc/config.yml", content: block })]);
    expect(got.pulls[0]!.title).toBe("Egress policy (loosens egress): Allow the payment API");
  });

  it("shows a refused pull request in the code host's words, and opens it on retry", async () => {
    const masking = "tables:\n  customers:\n    email: hash\n";
    const form = member.getByRole("form", { name: "Propose masking file" });
    await form.getByLabel("Summary").fill("Hash e-mails");
    await form.getByLabel(/Masking file, exactly/).fill(masking);
    await form.getByRole("button", { name: "Propose masking file" }).click();
    await said(member, /^Proposed; someone with masking\.approve decides it\./);

    await post(`${codehost}/_fake/git/faults`, { repository, operation: "pulls", status: 403, message: "Resource not accessible by integration" });
    const row = owner.getByTestId("proposal-Hash e-mails");
    try {
      await openProposals(owner);
      await row.getByRole("button", { name: "Approve" }).click();
      await said(owner, /Approved, but the pull request was refused: .*Resource not accessible by integration/);
    } finally {
      // The fault is the repository's at the fake code host: never left for the next test.
      await post(`${codehost}/_fake/git/faults`, { repository, operation: "pulls" });
    }
    await row.getByRole("button", { name: "Open the pull request again" }).click();
    await said(owner, /^Pull request #\d+ opened\./);
    await owner.getByTestId("masking-file").getByText("email: hash").waitFor();
    expect((await received()).commits.find((commit) => commit.path === ".svc/masking.yml")?.content).toBe(masking);
  });

  it("a fork's commit waits for the owner's approval of that exact commit", async () => {
    const pull = await fake("/_fake/git/pulls", { repository, headRepository: `${unique("forker")}/shop` });
    const ask = async () =>
      post(`${base}/v1/pr/callback-token`, { token: await identityToken({ event_name: "pull_request_target" }), pullRequest: pull.number });
    expect(await ask()).toMatchObject({ status: 403, body: { reason: "fork_commit_not_approved" } });

    await openProposals(owner);
    const short = String(pull.head_sha).slice(0, 7);
    await owner.getByRole("region", { name: "Fork commits" }).getByText(String(pull.head_sha)).waitFor();
    await owner.getByRole("button", { name: `Approve commit ${short}` }).click();
    await owner.getByRole("button", { name: "Yes, approve commit" }).click();
    await said(owner, new RegExp(`^Approved ${short}; its check may report now\\.`));
    const granted = await ask();
    expect(granted).toMatchObject({ status: 200, body: { commit: pull.head_sha, fork: true } });
    await screenshot(owner, "proposals-fork");
  });
});
