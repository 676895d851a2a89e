// Who is signed in (GET /auth/session): their organizations with their roles (and which one is the
// installation analytics' operating organization), and the CSRF token every mutation carries. The
// organization a page acts on comes from its address.
import { createContext } from "preact";
import { roleAllows, type Permission } from "../../worker/shared/permissions";
import type { Role } from "../../worker/shared/enums";
import { authCall, setCsrfToken } from "./rpc";

export interface Membership {
  id: string;
  slug: string;
  name: string;
  plan: string;
  role: string;
  /** The installation analytics' operating organization (SVC_ANALYTICS_OPERATOR_ORG): its Analytics section is offered. */
  operating: boolean;
}

export interface Session {
  person: { id: string; login: string | null; name: string | null; email: string | null; avatarUrl: string | null };
  organizations: Membership[];
  waiting: boolean;
  installUrl: string | null;
  /** The website assistant is on in this installation: offered to owners (pages/assistant.tsx). */
  assistantOn: boolean;
}

/** The signed-in person, or null when nobody is. */
export async function loadSession(): Promise<Session | null> {
  const body = await authCall<Session & { csrfToken: string }>("/auth/session");
  if (!body) return null;
  setCsrfToken(body.csrfToken);
  return body;
}

export async function signOut(): Promise<void> {
  await authCall("/auth/signout", { method: "POST" });
}

export interface SessionState {
  session: Session;
  /** Reads the session again (after joining or leaving an organization). */
  refresh: () => Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

/** The organization a page acts on, and what the person's role there allows. */
export interface OrgView {
  org: Membership;
  can: (permission: Permission) => boolean;
}

export const orgView = (org: Membership): OrgView => ({ org, can: (permission) => roleAllows(org.role as Role, permission) });

const LAST_ORG = "console:last-organization";
export const rememberOrganization = (slug: string) => localStorage.setItem(LAST_ORG, slug);
export const rememberedOrganization = () => localStorage.getItem(LAST_ORG);
