// What /mcp offers: a closed set of tools, each a console procedure called as the token's person. The
// composition root gives it (worker/rpc/mcp-tools.ts, beside the router whose procedures the tools
// call), loaded on the first use, not at isolate start; this capability speaks the protocol around it.
import type { AppContext } from "../http/context";
import type { RpcBearer } from "../trpc/context";

/** How a tool call ended, as the analytics event reports it. */
export type ToolOutcome = "ok" | "error" | "refused";

export interface ToolAnswer {
  outcome: ToolOutcome;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolSet {
  /** The tools' names: a call naming another is a protocol error. */
  names: readonly string[];
  /** The tools as tools/list answers them, with JSON Schemas of what each takes. */
  listed: () => unknown[];
  /** What each tool does and the permissions its procedures need, for the consent page. */
  abilities: () => Array<{ title: string; permissions: string[] }>;
  /** Calls one tool for `bearer` in `orgId`; every failure is an answer with isError, never a transport failure. */
  call: (c: AppContext, bearer: RpcBearer, orgId: string, name: string, args: unknown, onUnexpected: (error: unknown) => void) => Promise<ToolAnswer>;
}

/** Loads the tool set on first use (the procedures behind it are not imported at isolate start). */
export type LoadTools = () => Promise<ToolSet>;
