-- The addresses an environment's web services answer on, as the engine reports them in its
-- environment.* events (payload `preview_urls`).
ALTER TABLE environments ADD COLUMN preview_urls text[] NOT NULL DEFAULT '{}';
