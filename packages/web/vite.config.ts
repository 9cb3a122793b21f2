import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// Relative asset URLs: the page works behind any host name or address the node is reached by.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  logLevel: "warn",
  build: {
    outDir: "dist/app",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
