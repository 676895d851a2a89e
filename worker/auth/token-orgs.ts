// Which organization a token belongs to, remembered per isolate by the token's hash. It is not an
// authorization: a token never changes organization, and every request still reads its token row in
// the transaction that does its work, so a revoked or expired token, a revoked repository claim or a
// suspended organization is seen at once. Knowing the organization before the transaction lets that
// read be one statement, and lets a claim go straight to its environment's object, which checks the
// token on the connection it keeps instead of the request opening one (bench/claim.ts).
import { isolateMemory } from "../isolate-memory";

const orgs = isolateMemory<string, string>(10_000);

export const tokenOrg = (tokenHash: string): string | undefined => orgs.get(tokenHash);
export const rememberTokenOrg = (tokenHash: string, orgId: string): void => orgs.remember(tokenHash, orgId);
export const forgetTokenOrg = (tokenHash: string): void => orgs.forget(tokenHash);
