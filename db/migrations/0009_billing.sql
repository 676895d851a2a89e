-- Billing (spec: Organization and membership facts, /webhooks/billing). The provider decides plans
-- through signed deliveries; what it said is kept per subscription, and every plan change is kept as
-- billing history (the data export's `billing history`).

-- The provider's customer for an organization, made at the first checkout. A delivery names the
-- customer before the service knows the organization: the `billing_customer` lookup shows that one row.
CREATE TABLE billing_customers (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  customer_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
SELECT svc_protect_tenant_table('billing_customers');
CREATE POLICY by_customer ON billing_customers FOR SELECT USING (customer_id = app_lookup('billing_customer'));

-- Each subscription as the newest delivery described it. `event_created` and `state_rank` order
-- deliveries: one older than what is stored never moves a subscription (or the plan) backwards.
CREATE TABLE subscriptions (
  subscription_id text PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  price_id text,
  status text NOT NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  current_period_end timestamptz,
  event_created timestamptz NOT NULL,
  state_rank integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_org ON subscriptions (org_id);
SELECT svc_protect_tenant_table('subscriptions');

-- What happened to the plan and why, newest last.
CREATE TABLE billing_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT now(),
  source text NOT NULL CHECK (source IN ('provider', 'operator')),
  event_id text,
  subscription_id text,
  price_id text,
  status text,
  from_plan text NOT NULL,
  to_plan text NOT NULL,
  note text NOT NULL
);
CREATE INDEX billing_history_org ON billing_history (org_id, id);
SELECT svc_protect_tenant_table('billing_history');

-- Handled delivery ids, recorded in the same transaction as their effect (like codehost_deliveries):
-- belongs to no organization; the application role may insert and prune, never read.
CREATE TABLE billing_deliveries (
  event_id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_deliveries_received ON billing_deliveries (received_at);
GRANT INSERT, DELETE ON billing_deliveries TO svc_app;
GRANT SELECT (received_at) ON billing_deliveries TO svc_app;
