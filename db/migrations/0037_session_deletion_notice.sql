-- A session the deletion's Revoke step ends keeps why: the organization deleted, when its deletion was
-- requested and the held export's token hash, so the person holding that browser's cookie is told,
-- instead of a bare sign-in page, what happened and until when the export link works (GET /auth/ended).
ALTER TABLE sessions ADD COLUMN ended_by_deletion jsonb;
