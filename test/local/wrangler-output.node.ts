// What `npm start` shows of wrangler dev's output: everything, but its advice to curl
// /cdn-cgi/handler/scheduled, which answers `exception` here; `svc cron run` is named instead.
import { describe, expect, it } from "vitest";
import { CRON_ADVICE, shownLine } from "../../local/wrangler";

describe("wrangler dev's output under npm start", () => {
  it("replaces the scheduled-Worker warning with the command that works here, and passes every other line", () => {
    const warning = [
      "▲ [WARNING] Scheduled Workers are not automatically triggered during local development.",
      "To manually trigger a scheduled event, run:",
      '  curl "http://127.0.0.1:8787/cdn-cgi/handler/scheduled"',
      "For more details, see https://developers.cloudflare.com/workers/configuration/cron-triggers/#test-cron-triggers-locally",
    ];
    expect(warning.map(shownLine).filter((line) => line !== null)).toEqual([CRON_ADVICE]);
    expect(CRON_ADVICE).toContain("npm run --silent svc -- cron run");
    expect(shownLine("[wrangler:info] Ready on http://127.0.0.1:8787")).toBe("[wrangler:info] Ready on http://127.0.0.1:8787");
  });
});
