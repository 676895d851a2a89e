-- The console shows each environment's latest teardown: find an environment's commands directly.
CREATE INDEX runtime_commands_env ON runtime_commands (org_id, env_id, created_at DESC);
