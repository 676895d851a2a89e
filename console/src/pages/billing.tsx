// The plan and what decides it: the subscriptions the billing provider last described, billing
// history; checkout and the provider's portal (the browser goes there), or the operator-set plan.
// Back from a checkout, the page asks again until the provider's confirmation changes the plan.
import { ActionButton, ActionForm, field } from "../components/actions";
import { Show } from "../components/feedback";
import { Time } from "../components/time";
import { PLANS } from "../../../worker/shared/enums";
import { useLoad } from "../load";
import { ShowMore, usePaged } from "../components/paged";
import { Table } from "../components/table";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "../router";
import { rpc, type Outputs } from "../rpc";
import type { OrgView } from "../session";

/** The plan when the person left for checkout, kept in this tab: coming back, the page waits for it to change. */
const CHECKOUT_FROM = "console:checkout-from-plan";
/** How often, and how many times, the page asks again after a checkout until the provider's confirmation arrives (a minute). */
const POLL_MS = 3000;
const POLLS = 20;
/** The statuses of a subscription that grant its plan (worker/billing/plan.ts). */
const LIVE = new Set(["active", "trialing", "past_due"]);

/** Goes to an address the billing provider answered. */
const goTo = (url: string) => {
  location.assign(url);
  return "Opening the billing provider...";
};

export function BillingPage({ view }: { view: OrgView }) {
  const { org } = view;
  const returned = useLocation().searchParams.get("checkout");
  const billing = useLoad(() => rpc.billing.get.query({ orgId: org.id }), [org.id]);
  const history = usePaged((cursor) => rpc.billing.history.query({ orgId: org.id, cursor }), [org.id]);
  const checkout = (plan: "team" | "enterprise") => async () => {
    if (billing.data) sessionStorage.setItem(CHECKOUT_FROM, `${org.id} ${billing.data.plan}`);
    return goTo((await rpc.subscriptions.checkout.mutate({ orgId: org.id, plan })).url);
  };
  const portal = async () => goTo((await rpc.billing.portal.mutate({ orgId: org.id })).url);
  // Back from a paid checkout, the provider's confirmation may still be on its way: ask again for a
  // minute while the plan is the one the person left with (free, when this tab did not see them leave).
  const [leftOrg, leftPlan] = sessionStorage.getItem(CHECKOUT_FROM)?.split(" ") ?? [];
  const from = leftOrg === org.id ? leftPlan : "free";
  const confirming = returned === "done" && billing.data !== undefined && billing.data.plan === from;
  const [polls, setPolls] = useState(0);
  useEffect(() => {
    if (!confirming || polls >= POLLS) return;
    const timer = setTimeout(() => {
      setPolls((count) => count + 1);
      billing.reload();
      history.reload();
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [confirming, polls]);
  const banner =
    returned === "cancelled"
      ? "The checkout was cancelled; nothing changed."
      : returned !== "done" || billing.data === undefined
        ? null
        : !confirming
          ? `Thank you: the plan is now ${billing.data.plan}.`
          : polls < POLLS
            ? "Thank you. The plan changes here as soon as the billing provider confirms the payment..."
            : "The billing provider has not confirmed the payment yet; the plan changes here once it does (reload this page later).";
  return (
    <>
      <h1>Billing</h1>
      {banner && (
        <p role="status" class="panel" data-testid="checkout-return">
          {banner}
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
              <PlanActions about={about} checkout={checkout} portal={portal} />
            )}
            <h2>Subscriptions</h2>
            <Table
              rows={about.subscriptions}
              rowKey={(subscription) => subscription.id}
              empty="No subscription yet: subscribe to a plan above."
              columns={[
                { header: "Subscription", cell: (subscription) => <code>{subscription.id}</code> },
                { header: "Status", cell: (subscription) => subscription.status },
                { header: "Cancels at period end", cell: (subscription) => (subscription.cancelAtPeriodEnd ? "yes" : "no") },
                { header: "Period ends", cell: (subscription) => <Time at={subscription.currentPeriodEnd} none="unknown" /> },
              ]}
            />
          </>
        )}
      </Show>
      <h2>History</h2>
      <Show loaded={history}>
        {(entries) => (
          <Table
            rows={entries}
            rowKey={(entry) => entries.indexOf(entry)}
            empty="The plan has not changed yet."
            columns={[
              { header: "When", cell: (entry) => <Time at={entry.at} /> },
              {
                header: "Change",
                cell: (entry) => (
                  <>
                    {entry.from} to {entry.to}
                  </>
                ),
              },
              { header: "Decided by", cell: (entry) => entry.source },
              { header: "Status", cell: (entry) => entry.status ?? "" },
              { header: "Note", cell: (entry) => entry.note },
            ]}
          />
        )}
      </Show>
      <ShowMore paged={history} />
    </>
  );
}

type About = Outputs["billing"]["get"];

/**
 * The plan's actions: on the free plan the main one is subscribing to team; once a plan is paid for
 * (or a subscription grants one), it is managing the subscription at the provider's portal.
 */
function PlanActions({
  about,
  checkout,
  portal,
}: {
  about: About;
  checkout: (plan: "team" | "enterprise") => () => Promise<string>;
  portal: () => Promise<string>;
}) {
  const subscribed = about.plan !== "free" || about.subscriptions.some((subscription) => LIVE.has(subscription.status));
  if (subscribed) {
    return (
      <div class="row-actions">
        <ActionButton kind="primary" label="Manage the subscription" run={portal} />
        {about.plan === "team" && about.billing.enterpriseCheckout && <ActionButton label="Subscribe to enterprise" run={checkout("enterprise")} />}
      </div>
    );
  }
  return (
    <div class="row-actions">
      <ActionButton kind="primary" label="Subscribe to team" run={checkout("team")} />
      <ActionButton label="Subscribe to enterprise" run={checkout("enterprise")} />
      {about.hasCustomer && <ActionButton label="Payment method and invoices" run={portal} />}
    </div>
  );
}
