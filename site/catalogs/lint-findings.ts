// The migration lint catalogue, published as /lint-findings.v1.json: findings about PostgreSQL
// migrations that are hazardous on a live database. An `id` never changes or goes away between
// releases, nor does the hazard it names (site/published/lint-findings.v1.json holds the published
// ones and the build fails when one disappears or changes its hazard); `rule` and `title` may be
// reworded. Add a finding with the next free id.
export type Severity = "error" | "warning" | "notice";

export interface LintFinding {
  /** Stable identifier, `ML` and three digits. */
  id: string;
  /** The hazard the identifier stands for; fixed once published. */
  hazard: string;
  /** The rule's name as a linter configuration names it (may be renamed). */
  rule: string;
  title: string;
  severity: Severity;
  explanation: string;
}

export const LINT_FINDINGS: readonly LintFinding[] = [
  {
    id: "ML001",
    hazard: "table-rewrite",
    rule: "column-type-change-rewrites",
    title: "Changing a column's type rewrites the table",
    severity: "error",
    explanation:
      "ALTER COLUMN ... TYPE rewrites every row and rebuilds every index of the table while holding an ACCESS EXCLUSIVE lock, so reads and writes wait for the whole rewrite. Add a new column, backfill it in batches, switch readers, then drop the old one. Binary-compatible changes (varchar(n) to text, widening a varchar) do not rewrite.",
  },
  {
    id: "ML002",
    hazard: "table-rewrite-volatile-default",
    rule: "add-column-volatile-default",
    title: "Adding a column with a volatile default rewrites the table",
    severity: "error",
    explanation:
      "A constant default is stored once in the catalog, but a volatile default (random(), clock_timestamp(), gen_random_uuid()) must be computed per row, so ADD COLUMN rewrites the table under an ACCESS EXCLUSIVE lock. Add the column without a default, set the default, and backfill existing rows in batches.",
  },
  {
    id: "ML003",
    hazard: "index-without-concurrently",
    rule: "create-index-blocking",
    title: "Index built without CONCURRENTLY",
    severity: "error",
    explanation:
      "CREATE INDEX holds a SHARE lock that blocks every INSERT, UPDATE and DELETE on the table until the index is built. Use CREATE INDEX CONCURRENTLY, outside a transaction block, and check for an INVALID index if it fails.",
  },
  {
    id: "ML004",
    hazard: "lock-held-across-long-operation",
    rule: "lock-then-long-operation",
    title: "A lock is held across a long operation",
    severity: "error",
    explanation:
      "A statement that takes a strong lock (ALTER TABLE, LOCK TABLE) followed in the same transaction by a long one (a backfill UPDATE, a large INSERT ... SELECT, a data migration) keeps the lock until COMMIT, so the table is unavailable for the whole operation. Commit the schema change first and run the long work in its own batched transactions.",
  },
  {
    id: "ML005",
    hazard: "dropped-column-still-read",
    rule: "drop-column-in-use",
    title: "A dropped column is still read by the running release",
    severity: "error",
    explanation:
      "During a deploy the previous release keeps running against the migrated database; if it still selects or writes the dropped column, its queries fail until it is replaced. Stop reading the column in one release and drop it in a later one.",
  },
  {
    id: "ML006",
    hazard: "renamed-column-still-read",
    rule: "rename-column-in-use",
    title: "A renamed column is still read under its old name",
    severity: "error",
    explanation:
      "Renaming a column or table breaks every running query that names the old name. Add the new column (or a view), write both, move readers, then remove the old name in a later release.",
  },
  {
    id: "ML007",
    hazard: "not-null-full-scan",
    rule: "set-not-null-scans",
    title: "SET NOT NULL scans the table under an exclusive lock",
    severity: "warning",
    explanation:
      "ALTER COLUMN ... SET NOT NULL reads the whole table to prove no NULL exists while holding ACCESS EXCLUSIVE. Add CHECK (column IS NOT NULL) NOT VALID, VALIDATE CONSTRAINT in its own transaction (a weaker lock), then SET NOT NULL, which uses the validated check and skips the scan.",
  },
  {
    id: "ML008",
    hazard: "constraint-validated-under-lock",
    rule: "add-constraint-validates",
    title: "A foreign key or check is validated while the table is locked",
    severity: "warning",
    explanation:
      "ADD CONSTRAINT ... FOREIGN KEY or CHECK validates every existing row while blocking writes (on both tables for a foreign key). Add it NOT VALID, then VALIDATE CONSTRAINT separately, which takes only a SHARE UPDATE EXCLUSIVE lock.",
  },
  {
    id: "ML009",
    hazard: "unique-constraint-builds-index",
    rule: "add-unique-blocking",
    title: "Adding a unique or primary key constraint builds its index under lock",
    severity: "warning",
    explanation:
      "ADD CONSTRAINT ... UNIQUE or PRIMARY KEY builds the index while holding a lock that blocks writes. Build the index with CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... USING INDEX.",
  },
  {
    id: "ML010",
    hazard: "missing-lock-timeout",
    rule: "require-lock-timeout",
    title: "DDL without a lock timeout",
    severity: "warning",
    explanation:
      "A DDL statement waiting for its lock behind a long-running query makes every later query on the table queue behind it, which stalls the application. SET lock_timeout (a few seconds) before the DDL and retry the migration when it times out.",
  },
  {
    id: "ML011",
    hazard: "drop-index-blocking",
    rule: "drop-index-blocking",
    title: "Index dropped without CONCURRENTLY",
    severity: "notice",
    explanation: "DROP INDEX takes an ACCESS EXCLUSIVE lock on the table. Use DROP INDEX CONCURRENTLY outside a transaction block.",
  },
  {
    id: "ML012",
    hazard: "full-table-rewrite-command",
    rule: "vacuum-full-cluster",
    title: "VACUUM FULL or CLUSTER in a migration",
    severity: "error",
    explanation:
      "VACUUM FULL and CLUSTER rewrite the table under an ACCESS EXCLUSIVE lock for their whole run. Run them in a maintenance window, or use an online repacking tool, never in a deploy's migration.",
  },
];
