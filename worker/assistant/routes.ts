// POST /console/api/assistant: an owner's question, answered as server-sent events (ask.ts). A
// session route like the console's other /console/api routes; left out of /openapi.json as they are.
import type { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { refusal, register, route, serverFailure, type Replied } from "../openapi/declaration";
import { ask } from "./ask";
import { DAILY_REQUESTS, DAILY_TOKENS } from "./limits";
import { AskRequest } from "./schemas";

export function registerAssistant(app: Hono<AppEnv>): void {
  register(
    app,
    route({
      method: "post",
      path: "/console/api/assistant",
      operationId: "askAssistant",
      summary: "Ask the website assistant a question about using the service; the answer streams as server-sent events",
      description:
        "Browser session (x-svc-csrf); owners only. Events: `sources` ({ sources: [{ title, url }] }), `delta` ({ text }) as the answer is written, " +
        `then \`usage\` ({ inputTokens, outputTokens, remaining, resetsAt }) or \`error\`. Limits per owner per UTC day: ${DAILY_REQUESTS} requests and ${DAILY_TOKENS} tokens.`,
      tag: "assistant",
      security: ["session"],
      gate: "gated",
      // Like the console's other /console/api routes: not among the operations the spec publishes.
      published: false,
      body: AskRequest,
      responses: {
        200: { description: "The answer, as text/event-stream" },
        401: refusal("No session"),
        402: refusal("The organization's plan lacks the hosted control plane"),
        403: refusal("Not an owner of the organization, or no x-svc-csrf"),
        404: refusal("No such organization (or not a member)"),
        412: refusal("The assistant is off: no SVC_CMS_MODEL_API_KEY (not_configured)"),
        429: refusal("Today's requests or tokens are used up; the sentence and Retry-After say when they reset (00:00 UTC)", {
          "retry-after": "Seconds until 00:00 UTC",
        }),
        502: refusal("The model provider could not be reached or refused; the question was not counted"),
        500: serverFailure,
      },
      // A stream of events: not a JSON body this service declares.
      handler: async (c, { body }) => (await ask(c, body)) as Replied,
    }),
  );
}
