-- /readyz says whether the schema holds every migration the serving version carries (db/readiness.ts),
-- read in its transaction as the role the login takes. Expand only: nothing the previous release uses changes.
GRANT SELECT ON schema_migrations TO svc_app, svc_operator;
