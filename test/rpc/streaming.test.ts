// The unmodified client's three links: one request per call, a batch, and a batch streamed as JSON
// lines (trpc-accept: application/jsonl), whose procedures still run after the adapter has returned
// its response; the request's database pool must outlive them. With one connection per pool the
// procedures take turns, so the later ones connect well after the response has started.
import { describe, expect, it } from "vitest";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";

const LINKS = { plain: { batch: false }, batched: {}, streamed: { stream: true } };
const ONE_CONNECTION = { SVC_POOL_MAX: "1" };

describe("the console's first queries through every link of @trpc/client", () => {
  for (const [name, options] of Object.entries(LINKS)) {
    it(`answers account.context, members.list and environments.list for a signed-in owner (${name})`, async () => {
      const orgId = (await seedOrganization("links")).id;
      const login = `links-${crypto.randomUUID().slice(0, 6)}`;
      const session = await seedSession(await seedPerson(login, [{ orgId, role: "owner" }]));
      const client = await rpcClient(session, { ...options, env: ONE_CONNECTION });
      const [context, members, environments] = await Promise.all([
        client.account.context.query(),
        client.members.list.query({ orgId }),
        client.environments.list.query({ orgId }),
      ]);
      expect(context.organizations.map((org) => org.id)).toContain(orgId);
      expect(members.items).toEqual([expect.objectContaining({ role: "owner" })]);
      expect(environments).toEqual({ items: [], nextCursor: null });
    });
  }
});
