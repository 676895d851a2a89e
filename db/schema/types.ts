import { customType } from "drizzle-orm/pg-core";

// pg-core has no bytea column; the driver hands the bytes over as a Uint8Array (a Buffer in Node).
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});
