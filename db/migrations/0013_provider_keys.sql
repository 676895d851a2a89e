-- Bring your own model key (spec: provider keys, the budgeted model proxy). Keys are stored sealed
-- (AES-256-GCM; the sealing key's version beside the ciphertext, the organization, provider and row
-- bound as additional data); spend is counted per organization, provider and month.

-- One row per stored key; storing a new one revokes the live one, so a provider has at most one.
CREATE TABLE provider_keys (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('messages-provider', 'chat-provider')),
  key_version text NOT NULL,
  nonce bytea NOT NULL CHECK (length(nonce) = 12),
  ciphertext bytea NOT NULL,
  -- What the console shows of a key; never more.
  last_four text NOT NULL,
  created_by uuid REFERENCES people (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  resealed_at timestamptz,
  revoked_at timestamptz
);
CREATE UNIQUE INDEX provider_keys_live ON provider_keys (org_id, provider) WHERE revoked_at IS NULL;
SELECT svc_protect_tenant_table('provider_keys');

-- The monthly spend cap an owner sets per provider, in micro-dollars (1e-6 US dollars).
CREATE TABLE provider_budgets (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('messages-provider', 'chat-provider')),
  monthly_cap_micros bigint NOT NULL CHECK (monthly_cap_micros >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, provider)
);
SELECT svc_protect_tenant_table('provider_budgets');

-- Spent (reconciled to what the provider reported) and reserved (in flight: the worst case of
-- requests not yet reconciled) per calendar month (UTC). The proxy reserves with one conditional
-- UPDATE, so concurrent requests never take the sum past the cap.
CREATE TABLE provider_spend (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('messages-provider', 'chat-provider')),
  month date NOT NULL,
  spent_micros bigint NOT NULL DEFAULT 0 CHECK (spent_micros >= 0),
  reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
  requests bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, provider, month)
);
SELECT svc_protect_tenant_table('provider_spend');

-- The re-seal role (SVC_RESEAL_DATABASE_URL, `svc reseal`): every organization's sealed keys, and
-- nothing else. Row-level isolation does not narrow it (its policies admit every row); its grants
-- reach only the sealed columns of this one table.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'svc_reseal') THEN
    CREATE ROLE svc_reseal NOLOGIN NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
GRANT USAGE ON SCHEMA public TO svc_reseal;
GRANT SELECT (id, org_id, provider, key_version, nonce, ciphertext) ON provider_keys TO svc_reseal;
GRANT UPDATE (key_version, nonce, ciphertext, resealed_at) ON provider_keys TO svc_reseal;
CREATE POLICY reseal_read ON provider_keys FOR SELECT TO svc_reseal USING (true);
CREATE POLICY reseal_write ON provider_keys FOR UPDATE TO svc_reseal USING (true) WITH CHECK (true);
