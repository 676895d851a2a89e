// The plan and what decides it: the subscriptions the billing provider last described, billing
// history; checkout and the provider's portal (the browser goes there), or the operator-set plan.
import { ActionButton, ActionForm, field } from "../components/actions";
import { Empty, Show } from "../components/feedback";
import { Time } from "../components/time";
import { PLANS } from "../../../worker/shared/enums";
import { useLoad } from "../load";
import { ShowMore, usePaged } from "../components/paged";
import { useLocation } from "../router";
import { rpc } from "../rpc";
import type { OrgView } from "../session";

/** What coming back from the provider's checkout means (its success and cancel addresses). */
const CHECKOUT_RETURN: Record<string, string> = {
  done: "Thank you. The plan will update here once the billing provider confirms the payment; reload in a minute.",
  cancelled: "The checkout was cancelled; nothing changed.",
};

/** Goes to an address the billing provider answered. */
const goTo = (url: string) => {
  location.assign(url);
  return "Opening the billing provider...";
};

export function BillingPage({ view }: { view: OrgView }) {
  const { org } = view;
  const returned = CHECKOUT_RETURN[useLocation().searchParams.get("checkout") ?? ""];
  const billing = useLoad(() => rpc.billing.get.query({ orgId: org.id }), [org.id]);
  const history = usePaged((cursor) => rpc.billing.history.query({ orgId: org.id, cursor }), [org.id]);
  const checkout = (plan: "team" | "enterprise") => async () => goTo((await rpc.subscriptions.checkout.mutate({ orgId: org.id, plan })).url);
  return (
    <>
      <h1>Billing</h1>
      {returned && (
        <p role="status" class="panel">
          {returned}
        </p>
      )}
      <Show loaded={billing}>
        {(about) => (
          <>
            <dl class="facts">
              <dt>Plan</dt>
              <dd data-testid="plan">{about.plan}</dd>
              <dt>Billing</dt>
              <dd>
                {about.billing.on
                  ? "on: the plan follows the billing provider"
                  : about.billing.operatorSetsPlan
                    ? "off: the plan is set here"
                    : "off on this installation"}
              </dd>
              {about.billing.requiredPlan && (
                <>
                  <dt>Required plan</dt>
                  <dd>{about.billing.requiredPlan}</dd>
                </>
              )}
            </dl>
            {about.billing.operatorSetsPlan ? (
              <ActionForm
                label="Set plan"
                submit={async (fields) => {
                  const set = await rpc.billing.set.mutate({ orgId: org.id, plan: field(fields, "plan") as (typeof PLANS)[number] });
                  billing.reload();
                  history.reload();
                  return set.changed ? `The plan is now ${set.plan} (was ${set.from}).` : `The plan was already ${set.plan}.`;
                }}
              >
                <label>
                  Plan
                  <select name="plan" defaultValue={about.plan}>
                    {PLANS.map((plan) => (
                      <option key={plan} value={plan}>
                        {plan}
                      </option>
                    ))}
                  </select>
                </label>
              </ActionForm>
            ) : (
              <div class="row-actions">
                <ActionButton kind="primary" label="Subscribe to team" run={checkout("team")} />
                <ActionButton label="Subscribe to enterprise" run={checkout("enterprise")} />
                <ActionButton label="Payment method and invoices" run={async () => goTo((await rpc.billing.portal.mutate({ orgId: org.id })).url)} />
              </div>
            )}
            <h2>Subscriptions</h2>
            {about.subscriptions.length === 0 ? (
              <Empty>No subscription yet: subscribe to a plan above.</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Subscription</th>
                      <th>Status</th>
                      <th>Cancels at period end</th>
                      <th>Period ends</th>
                    </tr>
                  </thead>
                  <tbody>
                    {about.subscriptions.map((subscription) => (
                      <tr key={subscription.id}>
                        <td>
                          <code>{subscription.id}</code>
                        </td>
                        <td>{subscription.status}</td>
                        <td>{subscription.cancelAtPeriodEnd ? "yes" : "no"}</td>
                        <td>
                          <Time at={subscription.currentPeriodEnd} none="unknown" />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Show>
      <h2>History</h2>
      <Show loaded={history}>
        {(entries) =>
          entries.length === 0 ? (
            <Empty>The plan has not changed yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Change</th>
                    <th>Decided by</th>
                    <th>Status</th>
                    <th>Note</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry, index) => (
                    <tr key={index}>
                      <td>
                        <Time at={entry.at} />
                      </td>
                      <td>
                        {entry.from} to {entry.to}
                      </td>
                      <td>{entry.source}</td>
                      <td>{entry.status ?? ""}</td>
                      <td>{entry.note}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <ShowMore paged={history} />
    </>
  );
}
