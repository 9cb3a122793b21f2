/**
 * The verifier builds for the browser and runs without Node: Vite bundles its sources for the
 * browser with a plugin that refuses any Node built-in, and the bundle then verifies a proof in a
 * bare JavaScript context (no require, process, Buffer or module system).
 */
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { build, type Plugin, type Rollup } from "vite";
import { describe, expect, it } from "vitest";
import { validFixture } from "./fixture.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NODE_BUILTINS = new Set(builtinModules);

/** Fails the build on any import of a Node built-in. */
const noNodeBuiltins: Plugin = {
  name: "no-node-builtins",
  enforce: "pre",
  resolveId(id) {
    if (id.startsWith("node:") || NODE_BUILTINS.has(id.split("/")[0]!)) throw new Error(`imports the Node built-in ${id}`);
    return null;
  },
};

async function browserBundle(): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: "silent",
    root: ROOT,
    plugins: [noNodeBuiltins],
    resolve: { conditions: ["browser", "source", "import", "default"] },
    build: {
      write: false,
      minify: false,
      target: "es2022",
      lib: { entry: "src/index.ts", formats: ["iife"], name: "AnchordVerify", fileName: "verify" },
    },
  })) as Rollup.RollupOutput[];
  const chunks = out.flatMap((o) => o.output).filter((c): c is Rollup.OutputChunk => c.type === "chunk");
  expect(chunks).toHaveLength(1);
  return chunks[0]!.code;
}

describe("@anchord/verify in a browser", () => {
  it("bundles for the browser with no Node built-in and verifies a bundle in a bare context", async () => {
    const code = await browserBundle();
    expect(code).not.toMatch(/\brequire\(|from\s+["']node:/);
    const { bundle } = validFixture();
    const context: Record<string, unknown> = { TextEncoder, TextDecoder };
    runInNewContext(`${code}\nthis.result = JSON.stringify(AnchordVerify.verifyProofText(${JSON.stringify(JSON.stringify(bundle))}));`, context);
    expect(JSON.parse(context["result"] as string)).toMatchObject({ valid: true, facts: { blockId: bundle.block.id } });
    const broken = { ...bundle, block: { ...bundle.block, id: bundle.transaction.id } };
    runInNewContext(`${code}\nthis.result = JSON.stringify(AnchordVerify.verifyProofText(${JSON.stringify(JSON.stringify(broken))}));`, context);
    expect(JSON.parse(context["result"] as string)).toMatchObject({ valid: false, failedStep: "blockId" });
  });

  it("the guard works: a module that imports a Node built-in does not build", async () => {
    await expect(
      build({ configFile: false, logLevel: "silent", root: ROOT, plugins: [noNodeBuiltins], build: { write: false, lib: { entry: "test/fixture.ts", formats: ["es"], fileName: "x" } } }),
    ).rejects.toThrow(/Node built-in/);
  });
});
