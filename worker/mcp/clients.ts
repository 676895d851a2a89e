// Dynamic client registration (RFC 7591) for model-context-protocol clients: public clients only
// (no secret; the code is protected by PKCE), redirect URIs stored as given and matched exactly.
import { eq } from "drizzle-orm";
import * as z from "zod";
import { protocolClients } from "../../db/schema/mcp";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { text } from "../http/text";

export const MAX_REDIRECT_URIS = 10;

/**
 * The one grant a client is registered for (the column's default): no refresh tokens are issued, so a
 * client asking for more is registered for this and told so (RFC 7591 3.2.1 lets the server replace).
 */
export const CLIENT_GRANT_TYPES = ["authorization_code"];

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
// Schemes a browser would run or read locally rather than hand to an application.
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "about:", "blob:", "ws:", "wss:", "ftp:"]);

/**
 * Null when `uri` may be a redirect URI, else why not: absolute, no fragment, `https`, `http` only
 * on a loopback address (RFC 8252 7.3), or an application's own scheme (RFC 8252 7.1).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (url.hash || uri.includes("#")) return "has a fragment";
  if (url.username || url.password) return "carries credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname) ? null : "uses http on an address that is not loopback (use https)";
  if (REFUSED_SCHEMES.has(url.protocol)) return `uses the ${url.protocol} scheme`;
  return null;
}

/** What a client sends to register; unknown metadata is ignored (RFC 7591 2). */
export const RegistrationRequest = z.object({
  redirect_uris: z
    .array(text({ min: 1, max: 2000 }))
    .min(1)
    .max(MAX_REDIRECT_URIS),
  client_name: text({ min: 1, max: 200 }).optional(),
  token_endpoint_auth_method: text({ max: 100 }).optional(),
  grant_types: z
    .array(text({ max: 100 }))
    .max(10)
    .optional(),
  response_types: z
    .array(text({ max: 100 }))
    .max(10)
    .optional(),
});

export interface RegisteredClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  createdAt: Date;
}

/** A refusal of the registration, as RFC 7591 3.2.2 names it. */
export type RegistrationProblem = { error: "invalid_redirect_uri" | "invalid_client_metadata"; description: string };

export function registrationProblem(request: z.infer<typeof RegistrationRequest>): RegistrationProblem | null {
  for (const uri of request.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { error: "invalid_redirect_uri", description: `The redirect URI ${uri} ${problem}.` };
  }
  if (request.token_endpoint_auth_method && request.token_endpoint_auth_method !== "none") {
    return { error: "invalid_client_metadata", description: "Only public clients register here: token_endpoint_auth_method is none (PKCE protects the code)." };
  }
  // Asking for more than the code is answered with the code alone; asking without it leaves nothing to register.
  if (request.grant_types && !request.grant_types.includes("authorization_code")) {
    return {
      error: "invalid_client_metadata",
      description: `None of the grant types ${request.grant_types.join(", ") || "(none)"} is served; a client registers for authorization_code, how a person connects it.`,
    };
  }
  if (request.response_types?.some((type) => type !== "code")) {
    return { error: "invalid_client_metadata", description: "The only response type served is code." };
  }
  return null;
}

export async function registerClient(connect: () => Promise<Connection>, request: z.infer<typeof RegistrationRequest>): Promise<RegisteredClient> {
  const client: RegisteredClient = {
    clientId: crypto.randomUUID(),
    clientName: request.client_name ?? "Unnamed client",
    redirectUris: [...new Set(request.redirect_uris)],
    createdAt: new Date(),
  };
  await inTransaction(connect, {}, (tx) => tx.insert(protocolClients).values(client));
  return client;
}

/** The client named `clientId`, in a transaction that holds it as its `protocol_client_id` lookup. */
export async function findClient(tx: Tx, clientId: string): Promise<RegisteredClient | null> {
  const [row] = await tx
    .select({
      clientId: protocolClients.clientId,
      clientName: protocolClients.clientName,
      redirectUris: protocolClients.redirectUris,
      createdAt: protocolClients.createdAt,
    })
    .from(protocolClients)
    .where(eq(protocolClients.clientId, clientId));
  return row ?? null;
}

export function lookUpClient(connect: () => Promise<Connection>, clientId: string): Promise<RegisteredClient | null> {
  return inTransaction(connect, { lookups: { protocol_client_id: clientId } }, (tx) => findClient(tx, clientId));
}
