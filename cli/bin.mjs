#!/usr/bin/env node
// The package's `svc` bin (`npx svc ...` inside the repository): runs cli/svc.ts through tsx's loader,
// which `npm install` brings, so the TypeScript runs as it is, without a build step.
import { register } from "tsx/esm/api";

register();
await import("./svc.ts");
