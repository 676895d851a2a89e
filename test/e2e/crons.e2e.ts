// Cron Triggers under the local stack: an owner requests their organization's deletion, the export
// link answers 409 until the sweep runs, `svc cron run sweep` runs it now in the local Worker and prints
// what it did, and the link then downloads the export.
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { installedAccount, launch, screenshot, signedIn, unique, LANDED } from "./support/browser";
import { svc } from "./support/svc";

let browser: Browser;
afterAll(async () => {
  await browser?.close();
});

describe("Cron Triggers under the local stack", () => {
  it("lists the jobs of wrangler.toml", () => {
    const listed = svc(["cron", "list"]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^sweep\s+\*\/5 \* \* \* \*\s+next /m);
  });

  it("runs the sweep on demand, which completes a requested deletion; the export link then downloads", async () => {
    browser = await launch();
    const login = unique("sweep");
    await installedAccount(login);
    const page = await signedIn(browser, login);
    await page.waitForURL(LANDED);
    const slug = new URL(page.url()).pathname.split("/")[2]!;
    const requested = await page.evaluate(async (confirm) => {
      const session = (await (await fetch("/auth/session")).json()) as { csrfToken: string; organizations: Array<{ id: string; slug: string }> };
      const orgId = session.organizations.find((organization) => organization.slug === confirm)!.id;
      const response = await fetch("/rpc/deletion.request", {
        method: "POST",
        headers: { "content-type": "application/json", "x-svc-csrf": session.csrfToken },
        body: JSON.stringify({ orgId, confirm }),
      });
      return { status: response.status, body: (await response.json()) as { result: { data: { exportLink: string } } } };
    }, slug);
    expect(requested.status).toBe(200);
    const link = requested.body.result.data.exportLink;
    expect((await fetch(link)).status).toBe(409);

    // Another file's sweep (or the stack's own Cron Trigger) may take this deletion first, and one that
    // finds it being advanced leaves it: the sweep is run until the deletion is done, a few times at most.
    let download = new Response(null, { status: 409 });
    for (let runs = 0; download.status === 409; runs++) {
      expect(runs).toBeLessThan(5);
      const run = svc(["cron", "run", "sweep"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const report = JSON.parse(run.stdout) as { job: string; outcome: string; report: { deletions: Record<string, string> } };
      expect(report).toMatchObject({ job: "sweep", outcome: "ok" });
      download = await fetch(link);
      if (download.status === 409) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(download.status).toBe(200);
    expect(await download.json()).toMatchObject({ organization: expect.objectContaining({ slug }) });

    // The owner, signed out by the Revoke step, is told what happened instead of a bare sign-in page.
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: /was deleted$/ }).waitFor();
    await page.getByText(new RegExp(`asked for the deletion of .* \\(${slug}\\) (now|yesterday|[^;]+ ago);`)).waitFor();
    await expect(page.getByTestId("export-until").textContent()).resolves.toMatch(
      /^The export link shown to the owner who asked for the deletion stops working /,
    );
    await page.getByRole("link", { name: "Sign in with the code host" }).waitFor();
    await screenshot(page, "deleted-organization");
  });
});
