// Writing the data export document as a stream of text into a sink (worker/storage: object storage
// from the Worker, a file from the command line): the organization, then each member page by page, then `files` and
// `notIncluded`. Nothing is held whole, so a large organization exports within the Worker's limits.
import { eq } from "drizzle-orm";
import { organizations } from "../../db/schema/organizations";
import { inTenant, type Connection } from "../../db/transaction";
import type { ArchiveWriter } from "../storage/sink";
import { exportedFiles, PROPOSAL_SECTIONS } from "./proposal-sections";
import { following, NOT_INCLUDED, SECTIONS } from "./sections";

export type Sink = Pick<ArchiveWriter, "append">;

export const PAGE = 500;

export async function writeDataExport(connect: () => Promise<Connection>, orgId: string, sink: Sink, now = new Date()): Promise<void> {
  const [organization] = await inTenant(connect, orgId, (tx) =>
    tx
      .select({ slug: organizations.slug, name: organizations.name, plan: organizations.plan, createdAt: organizations.createdAt })
      .from(organizations)
      .where(eq(organizations.id, orgId)),
  );
  if (!organization) throw new Error("The organization to export does not exist.");
  await sink.append(
    `{"version":1,"exportedAt":${JSON.stringify(now.toISOString())},"organization":${JSON.stringify({
      slug: organization.slug,
      name: organization.name,
      plan: organization.plan,
      createdAt: organization.createdAt.toISOString(),
    })}`,
  );
  for (const section of [...SECTIONS, ...PROPOSAL_SECTIONS]) {
    await sink.append(`,${JSON.stringify(section.name)}:[`);
    let first = true;
    for (const part of section.parts) {
      let after: unknown[] | null = null;
      for (;;) {
        const page = await inTenant(connect, orgId, async (tx) => {
          const { rows } = await tx.execute<Record<string, unknown>>(part.sql(orgId, following(part, after), PAGE));
          if (rows.length) after = part.keyOf(rows[rows.length - 1]!);
          return { count: rows.length, items: await part.rows(tx, orgId, rows) };
        });
        if (page.items.length) {
          await sink.append((first ? "" : ",") + page.items.map((item) => JSON.stringify(item)).join(","));
          first = false;
        }
        if (page.count < PAGE) break;
      }
    }
    await sink.append("]");
  }
  const files = await inTenant(connect, orgId, (tx) => exportedFiles(tx, orgId));
  await sink.append(`,"files":${JSON.stringify(files)},"notIncluded":${JSON.stringify(NOT_INCLUDED)}}`);
}

/** A sink that keeps the text: for tests and small documents. */
export function textSink(): Sink & { text: () => string } {
  const parts: string[] = [];
  return { append: async (text) => void parts.push(text), text: () => parts.join("") };
}
