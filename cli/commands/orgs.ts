import { parseArgs } from "node:util";
import { isUniqueViolation } from "../../db/errors";
import { PLANS, type Plan } from "../../db/schema";
import { createOrganization, SLUG_PATTERN } from "../../worker/organizations/store";
import { nodePool } from "../../db/node-pool";
import { requireVariable, UsageError, type Command } from "../command";

export const orgs: Command = async (args, env) => {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: "string" }, plan: { type: "string" } },
  });
  const [sub, slug] = positionals;
  if (sub !== "create" || !slug) throw new UsageError("orgs: expected `orgs create <slug>`.");
  if (!SLUG_PATTERN.test(slug)) throw new UsageError(`orgs: "${slug}" is not a slug (lower-case letters, digits and dashes).`);
  if (values.plan && !PLANS.includes(values.plan as Plan)) throw new UsageError(`orgs: --plan is one of ${PLANS.join(", ")}.`);
  const pool = nodePool(requireVariable(env, "SVC_DATABASE_URL"), "svc_app");
  try {
    const org = await createOrganization(pool.connect, {
      slug,
      ...(values.name ? { name: values.name } : {}),
      ...(values.plan ? { plan: values.plan as Plan } : {}),
      actorLabel: "operator command line",
    });
    console.log(JSON.stringify({ id: org.id, slug: org.slug, name: org.name, plan: org.plan }));
    return 0;
  } catch (error) {
    if (isUniqueViolation(error)) {
      console.error(`An organization with the slug "${slug}" already exists.`);
      return 1;
    }
    throw error;
  } finally {
    await pool.end();
  }
};
