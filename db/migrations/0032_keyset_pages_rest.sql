-- The last lists the console shows that paged by a time, or showed only a first page, read a page as
-- one range of an index too (issue 36, as 0028): invitations newest first, an organization's proposals
-- of one kind newest first (this index replaces the one by time alone, which had to filter by kind),
-- and fork pull-request commits, waiting ones first, then approved ones, each newest first (by the
-- approval's time; a waiting commit's request's), as worker/pr-checks/approvals.ts orders them.
CREATE INDEX invitations_created ON invitations (org_id, created_at, id);
DROP INDEX change_proposals_org;
CREATE INDEX change_proposals_org ON change_proposals (org_id, kind, proposed_at, id);
-- (CASE rather than COALESCE: under row-level security a COALESCE counts as leaky, and the page's
-- key would be a filter after the organization's rows instead of a bound of the index range.)
CREATE INDEX pr_commit_approvals_listed ON pr_commit_approvals
  (org_id, ((approved_at IS NULL)::int), (CASE WHEN approved_at IS NULL THEN requested_at ELSE approved_at END), repository_key, commit_sha);
