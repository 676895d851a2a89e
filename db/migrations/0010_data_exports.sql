-- Data export documents (spec: Data export document): each written as one object under
-- `data-exports/<org>/<id>.json` in the exports bucket; the row says where and how large.
CREATE TABLE data_exports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  object_key text NOT NULL,
  size_bytes bigint,
  requested_by uuid REFERENCES people (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX data_exports_org ON data_exports (org_id, created_at);
SELECT svc_protect_tenant_table('data_exports');
