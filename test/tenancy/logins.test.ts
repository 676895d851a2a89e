// Deployment logins (db/roles.ts, docs/deploy.md): members of their roles, inheriting them or not,
// each transaction taking its role; a login that would take the service out of row-level security is
// refused, never served; /readyz says so, naming the variable, and says when the schema is behind.
import { describe, expect, inject, it } from "vitest";
import { useBridge, withClient } from "../../db/neon";
import { LATEST_MIGRATION } from "../../db/migrations/latest";
import { callWith } from "../support/http";
import { captureLogs } from "../support/logs";
import { ownDatabase } from "../support/own-database";
import { asRole } from "../support/sql";

useBridge(inject("database").bridge);

/** A login made by SQL as the superuser, with `attributes`, a member of `roles`; its URL. */
async function login(attributes: string, roles: string[]): Promise<string> {
  const name = `login_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await asRole("superuser", (client) => client.query(`CREATE ROLE ${name} LOGIN ${attributes} PASSWORD 'pw' IN ROLE ${roles.join(", ")}`));
  const url = new URL(inject("database").logins.app);
  url.username = name;
  url.password = "pw";
  return url.toString();
}

const readiness = async (overrides: Record<string, string>) => {
  const response = await callWith(overrides, "/readyz");
  return { status: response.status, body: (await response.json()) as { ready: boolean; reason?: string } };
};

describe("deployment logins", () => {
  it("serves through a login that does not inherit its role (the suite's) and through one that does", async () => {
    for (const url of [inject("database").logins.app, await login("INHERIT", ["svc_app"])]) {
      expect((await readiness({ SVC_DATABASE_URL: url })).status).toBe(200);
      const response = await callWith({ SVC_DATABASE_URL: url }, "/v1/events", { method: "POST", token: "svc_e_unknown", json: { events: [] } });
      expect(response.status).toBe(401); // looked up, as the application role, and not found
    }
  });

  it("a login without its role taken has no rights of its own: every transaction takes it", async () => {
    const bare = inject("database").logins.app;
    await expect(withClient(bare, (client) => client.query("SELECT count(*) FROM organizations"))).rejects.toMatchObject({ code: "42501" });
  });

  const refused = [
    ["with BYPASSRLS itself", () => login("NOINHERIT BYPASSRLS", ["svc_app"]), /bypasses row-level security \(it is or may become login_/],
    ["that is a superuser", () => login("SUPERUSER", ["svc_app"]), /bypasses row-level security/],
    [
      "that belongs to a role with BYPASSRLS, as a role made in Neon's console belongs to neon_superuser",
      async () => {
        await asRole("superuser", (client) =>
          client.query(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'like_neon_superuser') THEN CREATE ROLE like_neon_superuser NOLOGIN BYPASSRLS; END IF; END $$",
          ),
        );
        return login("INHERIT", ["svc_app", "like_neon_superuser"]);
      },
      /like_neon_superuser/,
    ],
    ["that may act as the tables' owner", () => login("NOINHERIT", ["svc_app", "svc_migrator"]), /owns the protected tables/],
  ] as const;

  for (const [what, make, reason] of refused) {
    it(`refuses a login ${what}: /readyz 503 naming the variable, and nothing served`, async () => {
      const url = await make();
      const ready = await readiness({ SVC_DATABASE_URL: url });
      expect(ready.status).toBe(503);
      expect(ready.body.ready).toBe(false);
      expect(ready.body.reason).toMatch(/^SVC_DATABASE_URL names a login that/);
      expect(ready.body.reason).toMatch(reason);
      let response: Response | null = null;
      const logs = await captureLogs(async () => {
        response = await callWith({ SVC_DATABASE_URL: url }, "/v1/events", { method: "POST", token: "svc_e_unknown", json: { events: [] } });
      });
      expect(response!.status).toBe(500);
      expect(((await response!.json()) as { error: { code: string } }).error.code).toBe("config_invalid");
      expect(logs.event("request.failed")).toMatchObject({ level: "error", code: "config_invalid", kind: "login_refused", errorClass: ["LoginRefused"] });
    });
  }

  it("refuses an operator login that bypasses row-level security, naming SVC_ADMIN_DATABASE_URL", async () => {
    const url = await login("NOINHERIT BYPASSRLS", ["svc_operator"]);
    const ready = await readiness({ SVC_ADMIN_DATABASE_URL: url });
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toMatch(/^SVC_ADMIN_DATABASE_URL names a login that bypasses row-level security/);
  });
});

describe("/readyz and the schema", () => {
  it("is not ready while this version's newest migration is missing, and ready on a newer schema", async () => {
    const { database, bindings } = await ownDatabase();
    await withClient(database.migration, (client) => client.query("DELETE FROM schema_migrations WHERE name = $1", [LATEST_MIGRATION]));
    const behind = await readiness({ ...bindings });
    expect(behind.status).toBe(503);
    expect(behind.body.reason).toBe(
      `The database's schema is behind this version: migration ${LATEST_MIGRATION} is not applied. Apply the migrations (docs/deploy.md).`,
    );
    await withClient(database.migration, (client) =>
      client.query("INSERT INTO schema_migrations (name, checksum) VALUES ($1, 'x'), ('9999_a_later_release', 'x')", [LATEST_MIGRATION]),
    );
    expect((await readiness({ ...bindings })).status).toBe(200);
  });
});
