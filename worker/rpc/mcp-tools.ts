// The eight tools of /mcp: a closed set, each the console procedure that does the same thing, called
// through tRPC's server-side caller as the token's person in the token's organization. So each call
// is checked like a console call at the moment it runs (membership, the role's permission, the plan
// gate, in the transaction that does the work), and shares the procedure's input schema (less
// `orgId`, which the token fixes) and its logic: nothing here re-implements a procedure.
import { TRPCError } from "@trpc/server";
import * as z from "zod";
import type { AppContext } from "../http/context";
import type { ToolAnswer, ToolOutcome, ToolSet } from "../mcp/tool-set";
import type { RpcBearer } from "../trpc/context";
import { rpcContext } from "./context";
import { appRouter } from "./router";

type Caller = ReturnType<typeof appRouter.createCaller>;

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The procedure(s) it calls; the input schema comes from the first. */
  procedures: readonly string[];
  /** What a client may assume of a call (MCP's tool annotations: hints a client shows or acts on, never trusted for access). */
  annotations: ToolAnnotations;
  run: (caller: Caller, orgId: string, input: Record<string, unknown>) => Promise<unknown>;
}

/**
 * MCP's tool annotations. A read changes nothing; a change may ask the code host to run a workflow in
 * the customer's repository (open world), and only a teardown destroys, and is the same done twice.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const STARTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const DESTROYS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

/** The most recent workload runs the environment reading includes. */
export const LATEST_RUNS = 10;

// `as never`: the input was parsed with the procedure's own schema (below), which the call parses again.
export const TOOLS: readonly Tool[] = [
  {
    name: "list_environments",
    title: "List environments",
    description: "The organization's environments, most recently heard from first: state, repository, branch, pull request, preview URLs, expiry, teardown.",
    procedures: ["environments.list"],
    annotations: READS,
    run: (caller, orgId, input) => caller.environments.list({ orgId, ...input } as never),
  },
  {
    name: "get_environment",
    title: "Read an environment",
    description: `One environment by envId: its state, branch, pull request, preview URLs and teardown, with its ${LATEST_RUNS} latest workload runs.`,
    procedures: ["environments.get", "workloads.runs"],
    annotations: READS,
    run: async (caller, orgId, input) => {
      const environment = await caller.environments.get({ orgId, ...input } as never);
      const latestRuns = (await caller.workloads.runs({ orgId, envId: environment.envId, limit: LATEST_RUNS })).items;
      return { ...environment, latestRuns };
    },
  },
  {
    name: "create_environment",
    title: "Create an environment",
    description:
      "Brings an environment up for a branch (or pull request) of a repository where the organization's App is installed: dispatches the engine's workflow with a new envId and answers the dispatch record.",
    procedures: ["environments.create"],
    annotations: STARTS,
    run: (caller, orgId, input) => caller.environments.create({ orgId, ...input } as never),
  },
  {
    name: "teardown_environment",
    title: "Tear an environment down",
    description: "Tears an environment down: records a durable teardown command for the engine and dispatches its down workflow.",
    procedures: ["environments.teardown"],
    annotations: DESTROYS,
    run: (caller, orgId, input) => caller.environments.teardown({ orgId, ...input } as never),
  },
  {
    name: "run_agents",
    title: "Run agents",
    description: "Starts an agent run on an environment (the engine's agents command on the environment's branch), optionally only the named agent workflows.",
    procedures: ["agents.run"],
    annotations: STARTS,
    run: (caller, orgId, input) => caller.agents.run({ orgId, ...input } as never),
  },
  {
    name: "run_load",
    title: "Run load",
    description: "Starts a load run on an environment (the engine's load command on the environment's branch).",
    procedures: ["load.run"],
    annotations: STARTS,
    run: (caller, orgId, input) => caller.load.run({ orgId, ...input } as never),
  },
  {
    name: "list_workloads",
    title: "List workloads",
    description: "The organization's workload definitions with their latest version (its id is what start_workload_run takes).",
    procedures: ["workloads.list"],
    annotations: READS,
    run: (caller, orgId) => caller.workloads.list({ orgId }),
  },
  {
    name: "start_workload_run",
    title: "Start a workload run",
    description: "Starts a run of a workload version on an environment: recorded for the engine to claim, then the workflow is dispatched.",
    procedures: ["workloads.start"],
    annotations: STARTS,
    run: (caller, orgId, input) => caller.workloads.start({ orgId, ...input } as never),
  },
];

export const TOOL_NAMES = TOOLS.map((tool) => tool.name);

interface ProcedureDef {
  _def: { inputs: unknown[]; meta?: { permission: string | null } };
}
const procedureDef = (name: string) => (appRouter._def as unknown as { procedures: Record<string, ProcedureDef> }).procedures[name]!._def;

/** The procedure's input (every parser it chains, merged) without `orgId`: the token names the organization. */
function inputOf(procedure: string): z.ZodObject {
  const shapes = procedureDef(procedure).inputs.map((parser) => (parser as z.ZodObject).shape);
  const { orgId: _orgId, ...shape } = Object.assign({}, ...shapes) as Record<string, z.ZodType>;
  return z.object(shape).strict();
}

const INPUTS = new Map(TOOLS.map((tool) => [tool.name, inputOf(tool.procedures[0]!)]));

export const toolInput = (name: string) => INPUTS.get(name)!;

/** The permission each tool's procedures need, for the consent page and the docs. */
export const permissionsOf = (tool: Tool) => tool.procedures.map((name) => procedureDef(name).meta?.permission ?? null);

/** The tools as tools/list answers them, with JSON Schemas of what each takes. */
export function listedTools() {
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: tool.annotations,
    inputSchema: z.toJSONSchema(toolInput(tool.name), { io: "input" }) as { type: "object"; [key: string]: unknown },
  }));
}

const failed = (outcome: Exclude<ToolOutcome, "ok">, message: string): ToolAnswer => ({ outcome, isError: true, content: [{ type: "text", text: message }] });

// Refusals are what the caller may not do (now): role, plan, the token or membership gone.
const REFUSED: ReadonlySet<string> = new Set(["FORBIDDEN", "PAYMENT_REQUIRED", "UNAUTHORIZED"]);

/** Calls one of the tools for `bearer`; every failure is an answer with isError, never a transport failure. */
async function callTool(
  c: AppContext,
  bearer: RpcBearer,
  orgId: string,
  name: string,
  args: unknown,
  onUnexpected: (error: unknown) => void,
): Promise<ToolAnswer> {
  // A caller that is no browser: no cookie is read, so no CSRF header is asked for.
  const ctx = { ...rpcContext(c), sessionToken: null, csrfHeader: undefined, bearer };
  // The protocol layer refused any other name (worker/mcp/json-rpc.ts).
  const tool = TOOLS.find((candidate) => candidate.name === name)!;
  const parsed = toolInput(name).safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return failed("error", `The arguments are not valid: ${issue.path.length ? `${issue.path.join(".")} ` : ""}${issue.message}.`);
  }
  try {
    const result = await tool.run(appRouter.createCaller(ctx), orgId, parsed.data);
    const structured = Array.isArray(result) ? { items: result } : (result as Record<string, unknown>);
    return { outcome: "ok", content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (error) {
    if (error instanceof TRPCError && error.code !== "INTERNAL_SERVER_ERROR") {
      return failed(REFUSED.has(error.code) ? "refused" : "error", error.message);
    }
    onUnexpected(error);
    return failed("error", `The ${name} tool failed unexpectedly; request id ${ctx.requestId}.`);
  }
}

export const mcpTools: ToolSet = {
  names: TOOL_NAMES,
  listed: listedTools,
  abilities: () => TOOLS.map((tool) => ({ title: tool.title, permissions: permissionsOf(tool).filter((permission) => permission !== null) })),
  call: callTool,
};
