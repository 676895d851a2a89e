// Engine token names PostgreSQL could not store: refused with 400 where they enter (the CLI's route
// and the console's procedure), and no token is created.
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { rpcPost } from "../support/rpc";
import { seedOrganization, seedToken } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

let orgId: string;

beforeEach(async () => {
  orgId = (await seedOrganization("hostile")).id;
});

const engineTokens = () =>
  asRole("superuser", async (client) =>
    Number((await client.query("SELECT count(*) FROM tokens WHERE org_id = $1 AND kind = 'engine'", [orgId])).rows[0].count),
  );

const HOSTILE: Array<[string, string, string]> = [
  ["a NUL character", "runner\u0000", "must not contain a NUL"],
  ["a lone surrogate", "runner \udfff", "must not contain a lone surrogate"],
  ["101 characters", "n".repeat(101), "must be at most 100 characters"],
];

describe("POST /v1/tokens with a name PostgreSQL cannot store", () => {
  for (const [what, name, reason] of HOSTILE) {
    it(`answers 400 to a name with ${what}, creating nothing`, async () => {
      const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
      const response = await call("/v1/tokens", { method: "POST", token: cli, json: { name } });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.stringContaining(`\`name\`: ${reason}`) });
      expect(await engineTokens()).toBe(0);
    });
  }
});

describe("tokens.create with a name PostgreSQL cannot store", () => {
  for (const [what, name, reason] of HOSTILE) {
    it(`answers 400 BAD_REQUEST to a name with ${what}, creating nothing`, async () => {
      const session = await seedSession(await seedPerson(`tok-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]));
      const response = await rpcPost(session, "tokens.create", { orgId, name }, await browser(session).csrf());
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { message: string; data: { code: string } } };
      expect(body.error.data.code).toBe("BAD_REQUEST");
      expect(body.error.message).toContain(reason);
      expect(await engineTokens()).toBe(0);
    });
  }
});
