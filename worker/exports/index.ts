// The front door of worker/exports/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { dataExportsFolder, storeDataExport } from "./store";
