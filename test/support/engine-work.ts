// An organization ready for the console's engine-work procedures: the App installed on a repository
// of its own that holds the standard workflow (the file Getting started shows), a person per role, an
// engine token, and environments reported the way an engine reports them.
import type { Role } from "../../db/schema";
import STANDARD_SOURCE from "../../worker/environments/control-plane.yml";
import { STANDARD_WORKFLOW } from "../../worker/environments/engine-work";
import { fake, installApp, newRepository, type TestRepository } from "./codehost";
import { makeEvent, postEvents } from "./events";
import { seedToken } from "./seed";
import { seedPerson, seedSession } from "./sessions";
import { asRole } from "./sql";

export const putWorkflow = (repository: TestRepository, workflow = STANDARD_WORKFLOW, source = STANDARD_SOURCE) =>
  fake("/_fake/workflows", { json: { repository: repository.full, workflow, source } });

export const refuseWorkflow = (repository: TestRepository, status = 422, message = "Workflow is disabled", workflow = STANDARD_WORKFLOW) =>
  fake("/_fake/refusals", { json: { repository: repository.full, workflow, status, message } });

export interface Workplace {
  orgId: string;
  repository: TestRepository;
  engine: string;
  /** A session of a person holding each role. */
  sessions: Record<Role, string>;
}

export async function workplace(prefix: string): Promise<Workplace> {
  const repository = newRepository(prefix);
  const { orgId } = await installApp(repository);
  // The rest at once: none of it reads another's rows.
  const roles = ["owner", "admin", "member", "viewer"] as const;
  const [, engine, ...roleSessions] = await Promise.all([
    putWorkflow(repository),
    seedToken(orgId, "engine"),
    ...roles.map(async (role) => seedSession(await seedPerson(`${role}-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]))),
  ]);
  const sessions = Object.fromEntries(roles.map((role, index) => [role, roleSessions[index]!])) as Record<Role, string>;
  return { orgId, repository, engine: engine.token, sessions };
}

/** The engine reports an environment of the workplace's repository. */
export async function reportEnvironment(
  place: Workplace,
  envId: string,
  payload: Record<string, unknown> = { branch: "main" },
  type = "environment.ready",
  sequence = 1,
) {
  const response = await postEvents(place.engine, [makeEvent({ type, envId, sequence, payload: { repository: place.repository.full, ...payload } })]);
  if (response.status !== 202) throw new Error(`reporting environment ${envId}: ${response.status}`);
}

export const newEnvId = () => `env-${crypto.randomUUID().slice(0, 8)}`;

/** The dispatches the fake code host accepted for the repository. */
export const acceptedDispatches = async (repository: TestRepository) =>
  (
    (await (await fake(`/_fake/dispatches?repository=${encodeURIComponent(repository.full)}`)).json()) as {
      dispatches: Array<{ workflow: string; ref: string; inputs: Record<string, string> }>;
    }
  ).dispatches;

export const storedDispatch = (id: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT * FROM workflow_dispatches WHERE id = $1", [id])).rows[0]);

export const auditEntries = (orgId: string, action: string) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT actor_label, target, data FROM audit_log WHERE org_id = $1 AND action = $2 ORDER BY seq", [orgId, action])).rows as Array<{
        actor_label: string;
        target: string | null;
        data: Record<string, unknown>;
      }>,
  );
