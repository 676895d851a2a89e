// The audit export (NDJSON, head last) and its offline verification: every kind of tampering is named
// at its first bad entry, and a cut tail is caught against the head the console shows.
import { beforeEach, describe, expect, it } from "vitest";
import { DatabaseUnreachable } from "../../db/neon";
import { inTenant } from "../../db/transaction";
import { appendAudit } from "../../worker/audit/append";
import { exportPage, streamAuditExport } from "../../worker/audit/export";
import { verifyExportFile } from "../../worker/audit/offline-verify";
import { call } from "../support/http";
import { captureLogs } from "../support/logs";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { appPool } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;
let owner: string;

beforeEach(async () => {
  orgId = (await seedOrganization("audit-export")).id;
  owner = await seedSession(await seedPerson(`audit-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
  const console = await rpcClient(owner);
  for (const name of ["First", "Second", "Third"]) await console.organization.settings.mutate({ orgId, name });
  await console.tokens.create.mutate({ orgId, name: "exported" });
});

const download = (session: string, org = orgId) => call(`/console/api/audit/export?orgId=${org}`, { headers: { cookie: `svc_session=${session}` } });

async function exported(): Promise<string[]> {
  const response = await download(owner);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/application\/x-ndjson/);
  expect(response.headers.get("content-disposition")).toMatch(/attachment; filename="audit-.+\.ndjson"/);
  return (await response.text()).trim().split("\n");
}

const text = (lines: string[]) => lines.join("\n") + "\n";

describe("the audit export", () => {
  it("is every entry with its hash and its predecessor's, ending with the head audit.verify shows", async () => {
    const lines = await exported();
    const entries = lines.slice(0, -1).map((line) => JSON.parse(line) as { seq: number; hash: string; prevHash: string | null; actor: string });
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1));
    expect(entries[0]!.prevHash).toBeNull();
    const verdict = await (await rpcClient(owner)).audit.verify.query({ orgId });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      head: { organization: orgId, seq: verdict.head!.seq, hash: verdict.head!.hash, entries: entries.length },
    });
    expect(await verifyExportFile(text(lines), verdict.head!.hash)).toMatchObject({ intact: true, entries: entries.length });
  });

  it("writes each entry byte for byte as JSON.stringify writes it, page after page", async () => {
    const pool = appPool();
    try {
      // What jsonb's own text would write differently (spacing, key order, numbers) and what JSON quotes.
      const data = [
        { b: 1, a: [1.5, 1e21, 1e-7, 0.1, true, null], "10": "ten", "2": { nested: "x\u0001y\u2028z" } },
        { emoji: "😀", "": "", quote: '"\\/', line: "a\nb\tc" },
        {},
      ];
      await inTenant(pool.connect, orgId, async (tx) => {
        for (const [n, entry] of data.entries()) {
          await appendAudit(tx, {
            orgId,
            action: "test.data",
            actorPersonId: null,
            actorLabel: `Zoë "${n}" \\ é`,
            target: n === 1 ? null : `t\u0007${n}`,
            data: entry,
          });
        }
      });
      const entries = await inTenant(pool.connect, orgId, (tx) => exportPage(tx, orgId, 0));
      // Two lines a page: page after page, each read while the one before is sent.
      const lines = (await new Response(streamAuditExport(pool.connect, orgId, 2)).text()).split("\n");
      expect(lines.slice(0, -2)).toEqual(entries.map((entry) => JSON.stringify(entry)));
      expect(lines.at(-1)).toBe("");
      expect(JSON.parse(lines.at(-2)!)).toMatchObject({ head: { seq: entries.at(-1)!.seq, hash: entries.at(-1)!.hash, entries: entries.length } });
    } finally {
      await pool.end();
    }
  });

  it("ends a download the database cut off with a line saying so, in the catalog's words, never an errored body", async () => {
    const pool = appPool();
    try {
      // The database goes away after the head and the first page were read: the third connection fails.
      let connections = 0;
      const connect = () => (++connections > 2 ? Promise.reject(new DatabaseUnreachable(new Error("gone"))) : pool.connect());
      let body = "";
      // The cut is logged for the operator with the request's diagnosis, read here rather than printed.
      const logs = await captureLogs(async () => {
        body = await new Response(streamAuditExport(connect, orgId, 2)).text();
      });
      expect(logs.event("audit.export_failed")).toMatchObject({ level: "error", code: "database_unavailable", kind: "database_unreachable", entries: 2 });
      const lines = body.trimEnd().split("\n");
      expect(lines).toHaveLength(3);
      expect(JSON.parse(lines.at(-1)!)).toEqual({
        error: { code: "database_unavailable", message: "The service could not reach its database.", entriesSent: 2 },
      });
      expect(await verifyExportFile(text(lines))).toMatchObject({ intact: false, reason: expect.stringMatching(/failed before its end/) });
    } finally {
      await pool.end();
    }
  });

  it("names the first bad entry for an altered, removed, inserted or reordered entry", async () => {
    const lines = await exported();
    const altered = [...lines];
    altered[1] = altered[1]!.replace('"action":"', '"action":"forged.');
    expect(await verifyExportFile(text(altered))).toMatchObject({ intact: false, line: 2, seq: 2, reason: expect.stringMatching(/altered/) });
    const removed = lines.filter((_, index) => index !== 1);
    expect(await verifyExportFile(text(removed))).toMatchObject({
      intact: false,
      line: 2,
      seq: 3,
      reason: expect.stringMatching(/removed, inserted or reordered/),
    });
    const inserted = [lines[0]!, lines[0]!, ...lines.slice(1)];
    expect(await verifyExportFile(text(inserted))).toMatchObject({ intact: false, line: 2 });
    const reordered = [lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)];
    expect(await verifyExportFile(text(reordered))).toMatchObject({ intact: false, line: 2, seq: 3 });
  });

  it("catches a cut tail: without the head line, and with a head rewritten to the shorter chain (against the console's head)", async () => {
    const lines = await exported();
    expect(await verifyExportFile(text(lines.slice(0, -2)))).toMatchObject({ intact: false, reason: expect.stringMatching(/cut short/) });
    // An export the service cut off (its database went away) ends with its own line saying so.
    const failed = [
      ...lines.slice(0, -2),
      JSON.stringify({ error: { code: "database_unavailable", message: "The service could not reach its database.", entriesSent: 1 } }),
    ];
    expect(await verifyExportFile(text(failed))).toMatchObject({ intact: false, line: failed.length, reason: expect.stringMatching(/failed before its end/) });
    const consoleHead = JSON.parse(lines.at(-1)!).head.hash as string;
    const shorter = lines.slice(0, -2);
    const last = JSON.parse(shorter.at(-1)!) as { seq: number; hash: string };
    const forged = [
      ...shorter,
      JSON.stringify({ head: { organization: orgId, seq: last.seq, hash: last.hash, entries: shorter.length, exportedAt: new Date().toISOString() } }),
    ];
    expect(await verifyExportFile(text(forged))).toMatchObject({ intact: true });
    expect(await verifyExportFile(text(forged), consoleHead)).toMatchObject({ intact: false, reason: expect.stringMatching(/not the head you expected/) });
  });

  it("keeps the names as they were: a closed account's entries still read and verify", async () => {
    const leaverId = await seedPerson(`leaver-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
    const leaver = await seedSession(leaverId);
    await (await rpcClient(leaver)).organization.settings.mutate({ orgId, name: "Renamed by the leaver" });
    await (await rpcClient(await seedSession(leaverId))).account.close.mutate({ confirm: "bye" });
    const lines = await exported();
    expect(lines.some((line) => line.includes('"actor":"leaver-'))).toBe(true);
    expect(await verifyExportFile(text(lines))).toMatchObject({ intact: true });
  });

  it("needs audit.export, answers another organization like a missing one, and a missing session with 401", async () => {
    const member = await seedSession(await seedPerson(`audit-member-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }]));
    expect(statusAndCode(await download(member))).toEqual([403, "forbidden"]);
    expect(statusAndCode(await download(owner, (await seedOrganization("audit-other")).id))).toEqual([404, "not_found"]);
    expect((await call(`/console/api/audit/export?orgId=${orgId}`)).status).toBe(401);
    expect((await download(owner, "not-a-uuid")).status).toBe(400);
  });
});
