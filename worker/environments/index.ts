// The front door of worker/environments/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { EnvIdInput, STANDARD_WORKFLOW, WorkflowFile, dispatchEngineWork, standardWorkflowText, workableEnvironment } from "./engine-work";
export { ENVIRONMENT_LIMITS, EnvId, EnvironmentPayload } from "./schemas";
export { projectEnvironments } from "./store";
