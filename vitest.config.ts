import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./worker/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: inject("workerBindings") },
    })),
  ],
  test: {
    globalSetup: ["./test/setup/global.ts"],
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/setup/fail-on-unhandled.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
