// `npx vitest run --config scripts/measure.config.ts`: measurements, not tests (they print
// figures and assert nothing about them), so `npm test` does not run them.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [react()],
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    css: false,
    include: ["scripts/*.measure.tsx"],
  },
});
