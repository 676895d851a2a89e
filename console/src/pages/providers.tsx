// Model provider keys and budgets, through the console's REST routes (/console/api/providers, not
// /rpc): which provider has a key (its last four characters only), the month's budget and spend;
// store a key, revoke it, set the budget (owners). Which API each provider speaks and the models the
// proxy prices come from providers.prices.
import { useState } from "preact/hooks";
import type * as z from "zod";
import type { ProviderList } from "../../../worker/providers/schemas";
import { ActionButton, ActionForm, field } from "../components/actions";
import { Show } from "../components/feedback";
import { dollars } from "../components/money";
import { Table } from "../components/table";
import { Time } from "../components/time";
import { useLoad } from "../load";
import { authCall, rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";

type ProviderState = z.output<typeof ProviderList>["providers"][number];
type Prices = Outputs["providers"]["prices"];

/** A provider route of this organization; signed out (null) is a failure here, not an answer. */
async function providers<T>(orgId: string, suffix: string, init: RequestInit = {}): Promise<T> {
  const body = await authCall<T>(`/console/api/providers${suffix}?orgId=${encodeURIComponent(orgId)}`, {
    ...init,
    headers: { "content-type": "application/json" },
  });
  if (body === null) throw new Error("Your session has ended; sign in again.");
  return body;
}

export function ProvidersPage({ view }: { view: OrgView }) {
  const { org } = view;
  const list = useLoad(() => providers<{ providers: ProviderState[] }>(org.id, ""), [org.id]);
  const prices = useLoad(() => rpc.providers.prices.query({ orgId: org.id }), [org.id]);
  return (
    <>
      <h1>Model provider keys</h1>
      <p class="muted">
        Engines and the CLI call the model providers through this service with their own token; the organization's key goes upstream in its place, within the
        monthly budget. A model the proxy has no price for is refused.
      </p>
      <Show loaded={list}>
        {({ providers: states }) =>
          states.map((state) => (
            <Provider
              key={state.provider}
              orgId={org.id}
              state={state}
              priced={prices.data?.providers.find((entry) => entry.provider === state.provider)}
              view={view}
              reload={list.reload}
            />
          ))
        }
      </Show>
      <Show loaded={prices}>
        {(about) => (
          <p class="muted">
            Prices are US dollars per million tokens, input (uncached) and output, the providers' list prices as of {about.asOf}
            {about.added.length > 0 && (
              <>
                ; the installation adds {about.added.map((entry) => `${entry.model} (${dollars(entry.input)} / ${dollars(entry.output)})`).join(", ")}, priced
                on either provider
              </>
            )}
            .
          </p>
        )}
      </Show>
    </>
  );
}

/** The models the proxy prices for one provider, folded away: the list is long. */
function PricedModels({ priced }: { priced: Prices["providers"][number] }) {
  return (
    <details>
      <summary>Priced models ({priced.models.length})</summary>
      <Table
        rows={priced.models}
        rowKey={(entry) => entry.model}
        caption={
          <>
            US dollars per million tokens (<a href={priced.source}>the provider's prices</a>)
          </>
        }
        captionClass="muted"
        columns={[
          { header: "Model (and its dated snapshots)", cell: (entry) => <code>{entry.model}</code> },
          { header: "Input", cell: (entry) => dollars(entry.input) },
          { header: "Output", cell: (entry) => dollars(entry.output) },
        ]}
      />
    </details>
  );
}

function Provider({
  orgId,
  state,
  priced,
  view,
  reload,
}: {
  orgId: string;
  state: ProviderState;
  priced: Prices["providers"][number] | undefined;
  view: OrgView;
  reload: () => void;
}) {
  const { provider, key, budget } = state;
  const path = `/${encodeURIComponent(provider)}`;
  // The key is typed into a controlled field so it can be cleared once stored.
  const [typed, setTyped] = useState("");
  return (
    <section aria-label={provider}>
      <h2>{provider}</h2>
      {priced && (
        <>
          <p data-testid={`${provider}-api`}>
            Speaks {priced.api}: engines and the CLI call <code>{priced.path}</code> here.
          </p>
          <PricedModels priced={priced} />
        </>
      )}
      <dl class="facts">
        <dt>Key</dt>
        <dd data-testid={`${provider}-key`}>
          {key ? (
            <>
              ending <code>{key.lastFour}</code>{" "}
              <span class="muted">
                (stored <Time at={key.createdAt} />, sealed under {key.sealedUnder})
              </span>
            </>
          ) : (
            <span class="muted">none: the proxy refuses requests</span>
          )}
        </dd>
        <dt>Budget</dt>
        <dd>
          {budget ? (
            `${dollars(budget.spentUsd)} spent and ${dollars(budget.reservedUsd)} reserved of ${dollars(budget.monthlyCapUsd)} in ${budget.month}`
          ) : (
            <span class="muted">none set: the proxy refuses requests</span>
          )}
          {budget && budget.overrunUsd > 0 ? (
            <strong>{` Overrun: ${dollars(budget.overrunUsd)} past the cap (answers used more than they reserved); the proxy refuses requests until the budget is raised.`}</strong>
          ) : null}
        </dd>
      </dl>
      <ActionForm
        label={`Save ${provider} key`}
        submit={async () => {
          const stored = await providers<{ key: { lastFour: string }; replaced: boolean }>(orgId, path, {
            method: "PUT",
            body: JSON.stringify({ key: typed }),
          });
          setTyped("");
          reload();
          return `Stored the key ending ${stored.key.lastFour}${stored.replaced ? "; the previous one is revoked" : ""}.`;
        }}
      >
        <label>
          Key
          <input
            type="password"
            autoComplete="off"
            required
            minLength={8}
            maxLength={512}
            value={typed}
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
        </label>
      </ActionForm>
      {key && (
        <ActionButton
          label="Revoke key"
          kind="danger"
          confirm={`Revoke the ${provider} key ending ${key.lastFour}?`}
          run={async () => {
            await providers(orgId, path, { method: "DELETE" });
            reload();
            return "Revoked.";
          }}
        />
      )}
      {view.can("billing.manage") && (
        <ActionForm
          label={`Set ${provider} budget`}
          submit={async (fields) => {
            const monthlyCapUsd = Number(field(fields, "cap"));
            const set = await providers<{ budget: { monthlyCapUsd: number } }>(orgId, `${path}/budget`, {
              method: "PUT",
              body: JSON.stringify({ monthlyCapUsd }),
            });
            reload();
            return `The monthly budget is ${dollars(set.budget.monthlyCapUsd)}.`;
          }}
        >
          <label>
            Monthly budget (US dollars)
            <input name="cap" type="number" required min={0} max={1000000} step="0.01" defaultValue={budget ? String(budget.monthlyCapUsd) : ""} />
          </label>
        </ActionForm>
      )}
    </section>
  );
}
