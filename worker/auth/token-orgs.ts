// Which organization a token belongs to, remembered per isolate by the token's hash. It is not an
// authorization: a token never changes organization, and every request still reads its token row in
// the transaction that does its work, so a revoked or expired token, a revoked repository claim or a
// suspended organization is seen at once. Knowing the organization before the transaction lets that
// read be one statement, and lets a claim go straight to its environment's object, which checks the
// token on the connection it keeps instead of the request opening one (bench/claim.ts).
const LIMIT = 10_000;
const orgs = new Map<string, string>();

export const tokenOrg = (tokenHash: string): string | undefined => orgs.get(tokenHash);

export function rememberTokenOrg(tokenHash: string, orgId: string): void {
  // A Map iterates in insertion order: past the limit the longest-remembered entry goes first.
  if (orgs.size >= LIMIT && !orgs.has(tokenHash)) orgs.delete(orgs.keys().next().value!);
  orgs.set(tokenHash, orgId);
}

export const forgetTokenOrg = (tokenHash: string): void => void orgs.delete(tokenHash);
