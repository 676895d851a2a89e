// The data export document of one organization, written as the application role and parsed by its
// published schema (what `svc export` and the console's export produce).
import { textSink, writeDataExport } from "../../worker/exports/document";
import { DataExport } from "../../worker/exports/schema";
import { appPool } from "./sql";

export async function exportOf(orgId: string): Promise<DataExport> {
  const pool = appPool();
  try {
    const sink = textSink();
    await writeDataExport(pool.connect, orgId, sink);
    return DataExport.parse(JSON.parse(sink.text()));
  } finally {
    await pool.end();
  }
}
