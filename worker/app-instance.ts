// The isolate's one app, built when this module is first imported (worker/index.ts does so on the
// first request).
import { createApp } from "./app";

export const app = createApp();
