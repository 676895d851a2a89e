// svc claims add|list|revoke over /v1/oidc/bindings (worker/repository-claims/routes.ts): which
// repositories' workflows may exchange identity tokens for this organization's engine tokens.
import type * as z from "zod";
import type { BindingList, OidcBinding } from "../../worker/repository-claims/schemas";
import { UsageError, type CommandEnv } from "../command";
import { expectOk } from "./http";
import { expectArguments } from "./options";
import { invocation, print, storedToken } from "./session";

type Binding = z.infer<typeof OidcBinding>;

const REPOSITORY = /^[^/\s]+\/[^/\s]+$/;

export async function claims(args: string[], env: CommandEnv): Promise<number> {
  const [action, ...rest] = args;
  const run = invocation(rest, env);
  switch (action) {
    case "add": {
      const [repository] = expectArguments(run, ["owner/name"]);
      if (!REPOSITORY.test(repository!)) throw new UsageError(`${repository} is not a repository as owner/name.`);
      const claim = await expectOk<Binding>(run.url, "POST", "/v1/oidc/bindings", 201, { token: storedToken(run), json: { repository } });
      return print(run, claim, () => `Claimed ${claim.repository} (${claim.id}): its workflows may now exchange identity tokens for engine tokens.`);
    }
    case "list": {
      expectArguments(run, []);
      const list = await expectOk<z.infer<typeof BindingList>>(run.url, "GET", "/v1/oidc/bindings", 200, { token: storedToken(run) });
      return print(run, list, () =>
        [
          `Workflows request identity tokens for the audience ${list.audience}`,
          ...(list.bindings.length ? [] : ["No repository is claimed."]),
          ...list.bindings.map(
            (claim) =>
              `${claim.id}  ${claim.repository}  ${claim.revokedAt ? `revoked ${claim.revokedAt}` : `live, ${claim.lastUsedAt ? `last used ${claim.lastUsedAt}` : "never used"}`}`,
          ),
        ].join("\n"),
      );
    }
    case "revoke": {
      const [identifier] = expectArguments(run, ["id | owner/name"]);
      // `owner/name` as two path segments; a uuid as one.
      const path = REPOSITORY.test(identifier!)
        ? `/v1/oidc/bindings/${identifier!.split("/").map(encodeURIComponent).join("/")}`
        : `/v1/oidc/bindings/${encodeURIComponent(identifier!)}`;
      const revoked = await expectOk<{ repository: string; alreadyRevoked: boolean; tokensRevoked: number }>(run.url, "DELETE", path, 200, {
        token: storedToken(run),
      });
      return print(run, revoked, () =>
        revoked.alreadyRevoked
          ? `The claim on ${revoked.repository} was already revoked.`
          : `Revoked the claim on ${revoked.repository}; ${revoked.tokensRevoked} engine token${revoked.tokensRevoked === 1 ? "" : "s"} minted through it revoked with it.`,
      );
    }
    default:
      throw new UsageError(action ? `Unknown claims command ${action}.` : "claims needs add, list or revoke.");
  }
}
