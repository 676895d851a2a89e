// An unexpected failure on a hand-written route is diagnosable from its one log line, which carries
// nothing of the request.
import { describe, expect, it } from "vitest";
import { call } from "../support/http";
import { captureLogs } from "../support/logs";
import { expectDiagnosableLine, whileTokenNamesRefused } from "../support/refused-insert";
import { seedOrganization, seedToken } from "../support/seed";

describe("a failed request's log line", () => {
  it("names the request, route, error class, SQLSTATE, constraint and our frames; never the input, token or row", async () => {
    const orgId = (await seedOrganization("failure-logs")).id;
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    const marker = `marker-${crypto.randomUUID().slice(0, 8)}`;
    let response: Response | undefined;
    let constraint = "";
    const logs = await captureLogs(() =>
      whileTokenNamesRefused(marker, async (refusing) => {
        constraint = refusing;
        response = await call("/v1/tokens", { method: "POST", token: cli, json: { name: `runner ${marker}` } });
      }),
    );
    expect(response!.status).toBe(500);
    const body = (await response!.json()) as { error: { code: string }; requestId: string };
    expect(body.error.code).toBe("internal_error");
    expectDiagnosableLine(logs, "request.failed", { requestId: body.requestId, route: "/v1/tokens", code: "internal_error", constraint }, marker);
    expect(logs.text).not.toContain(cli);
  });
});
