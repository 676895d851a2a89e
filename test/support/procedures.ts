// Every console procedure, as the router declares it, and the call a walk makes of it. The
// permission check and the plan gate answer before a procedure reads the rest of its input
// (worker/trpc/builder.ts inOrganization), so a probe sends only what they read: the organization, to a
// procedure whose input names one, and nothing to the others. A new procedure is walked as it is.
import * as z from "zod";
import { appRouter } from "../../worker/rpc/router";
import type { ProcedureMeta } from "../../worker/trpc/builder";

interface Procedure {
  _def: { type: "query" | "mutation"; meta?: ProcedureMeta; inputs: unknown[] };
}

/** The router's procedures by name. */
export const PROCEDURES = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures);

/** Whether the procedure acts on an organization: its input declares `orgId`. */
export const actsOnOrganization = (procedure: Procedure) => procedure._def.inputs.some((input) => input instanceof z.ZodObject && "orgId" in input.shape);

/** The probe's input: the organization where the procedure names one. */
export const probeInput = (procedure: Procedure, orgId: string) => (actsOnOrganization(procedure) ? { orgId } : undefined);
