// The front door of worker/device/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { DEVICE_GRANT, DEVICE_PATHS } from "./schemas";
