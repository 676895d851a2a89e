// Rows the suite's stack cannot produce through its pages (billing off, no model traffic, claims made
// before they needed proof), written as the application role acting as the organization, as the Worker would.
import pg from "pg";
import { inject } from "vitest";

export async function asOrganization(slug: string, work: (client: pg.Client, orgId: string) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: inject("e2eDatabase").app });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT set_config('app.lookup_org_slug', $1, true)", [slug]);
    const { rows } = await client.query<{ id: string }>("SELECT id FROM organizations WHERE slug = $1", [slug]);
    await client.query("SELECT set_config('app.org_id', $1, true)", [rows[0]!.id]);
    await work(client, rows[0]!.id);
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}
