// exports.create writes the document into the exports bucket; the console downloads it by its link.
import { describe, expect, it } from "vitest";
import { DataExport } from "../../worker/exports/schema";
import { PART_BYTES } from "../../worker/storage/r2-sink";
import { call, callWith } from "../support/http";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { asRole } from "../support/sql";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { statusAndCode } from "../support/refusals";

async function person(orgId: string, role: "owner" | "admin" | "member") {
  return seedSession(await seedPerson(`export-${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]));
}

const get = (session: string, path: string) => call(path, { headers: { cookie: `svc_session=${session}` } });

describe("data exports from the console", () => {
  it("writes the document, lists it, and downloads it by its link; the body is valid against the schema", async () => {
    const orgId = (await seedOrganization("export-download")).id;
    const admin = await person(orgId, "admin");
    const console = await rpcClient(admin);
    const created = await console.exports.create.mutate({ orgId });
    expect(created.sizeBytes).toBeGreaterThan(100);
    expect(await console.exports.list.query({ orgId })).toEqual({
      items: [expect.objectContaining({ id: created.id, sizeBytes: created.sizeBytes, download: created.download })],
      nextCursor: null,
    });
    const response = await get(admin, created.download);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(/attachment/);
    const document = DataExport.parse(await response.json());
    expect(document.people).toEqual([expect.objectContaining({ role: "admin" })]);
  });

  it("needs data.export, answers another organization's export like a missing one, and refuses without export storage", async () => {
    const orgId = (await seedOrganization("export-guard")).id;
    const admin = await person(orgId, "admin");
    const created = await (await rpcClient(admin)).exports.create.mutate({ orgId });
    expect(statusAndCode(await get(await person(orgId, "member"), created.download))).toEqual([403, "forbidden"]);
    const stranger = await person((await seedOrganization("export-stranger")).id, "owner");
    expect(statusAndCode(await get(stranger, created.download))).toEqual([404, "not_found"]);
    expect(statusAndCode(await get(admin, `/console/api/exports/${crypto.randomUUID()}?orgId=${orgId}`))).toEqual([404, "not_found"]);

    const csrf = await browser(admin).csrf();
    const refused = await callWith({ EXPORTS: undefined }, "/rpc/exports.create", {
      method: "POST",
      json: { orgId },
      headers: { cookie: `svc_session=${admin}`, "x-svc-csrf": csrf },
    });
    expect(refused.status).toBe(412);
  });

  it("writes and downloads a document of several parts of the bucket's multipart upload", async () => {
    const orgId = (await seedOrganization("export-large")).id;
    const admin = await person(orgId, "admin");
    // About 3.5 parts of audit entries, each 2 KB of data: the entries' pages end anywhere in a part.
    const entries = Math.ceil((3.5 * PART_BYTES) / 2_000);
    await asRole("superuser", (client) =>
      client.query(
        `INSERT INTO audit_log (org_id, seq, action, actor_label, data, hash)
         SELECT $1, 1000 + n, 'bulk.seeded', 'seed', jsonb_build_object('n', n, 'filler', repeat('x', 2000)), md5(n::text) FROM generate_series(1, $2) n`,
        [orgId, entries],
      ),
    );
    const created = await (await rpcClient(admin)).exports.create.mutate({ orgId });
    expect(created.sizeBytes).toBeGreaterThan(3 * PART_BYTES);
    const response = await get(admin, created.download);
    expect(response.status).toBe(200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.length).toBe(created.sizeBytes);
    // Read whole, but not validated here (the test above validates a document against the schema): a
    // second copy of 30 MB of entries would bring the test runtime near its memory limit.
    const document = JSON.parse(new TextDecoder().decode(bytes)) as { auditLog: Array<{ action: string; data: { n?: number } }> };
    const seeded = document.auditLog.filter((entry) => entry.action === "bulk.seeded");
    expect(seeded.map((entry) => entry.data.n)).toEqual(Array.from({ length: entries }, (_, i) => i + 1));
    // About 30 MB written to the local bucket and read back: seconds on an idle machine, more on a busy one.
  }, 60_000);
});
