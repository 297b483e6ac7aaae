/**
 * `import("runbound")` loads no tool family's dependencies, and a run loads only the families it wires: the MCP SDK,
 * the Jupyter client and the LSP protocol came with every import (~300 ms here, 0.65–0.9 s on a harness's machine)
 * for a harness that may use two tools. The modules each process resolves are recorded by a loader hook.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOME } from "./helpers.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const HOOK = path.join(ROOT, "test/fixtures/record-resolve.mjs");
const scratch = mkdtempSync(path.join(tmpdir(), "runbound-imports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The packages under node_modules a fresh process resolves while it runs `code` (an ES module's body). */
function packagesLoadedBy(code: string): string[] {
  const record = path.join(scratch, `${Math.random().toString(36).slice(2)}.txt`);
  execFileSync(
    process.execPath,
    ["--import", "tsx/esm", "--import", HOOK, "--input-type=module", "-e", code],
    {
      cwd: ROOT,
      env: { ...process.env, RECORD_TO: record, RUNBOUND_HOME: HOME.home },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const urls = readFileSync(record, "utf8").split("\n");
  const names = urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter(Boolean);
  return [...new Set(names as string[])].sort();
}

const index = JSON.stringify(path.join(ROOT, "src/index.ts"));

describe("what importing runbound loads", () => {
  it("import('runbound') loads no package: no MCP SDK, Jupyter client, LSP protocol, zod or ast-grep", () => {
    expect(packagesLoadedBy(`await import(${index});`)).toEqual([]);
  });

  it("a run loads the families it wires: without kernels and language servers, no Jupyter client or LSP protocol", () => {
    const loaded = packagesLoadedBy(
      `const { createRun } = await import(${index});
       const run = await createRun({ workdir: ${JSON.stringify(scratch)}, kernels: false, lsp: false, debug: false });
       await run.dispose();`,
    );
    expect(loaded).toContain("@modelcontextprotocol/server");
    expect(loaded).toContain("@modelcontextprotocol/client");
    // The v1 SDK only comes with the Claude Agent SDK's adapter.
    expect(loaded).not.toContain("@modelcontextprotocol/sdk");
    expect(loaded).toContain("@ast-grep/napi");
    for (const name of ["@jupyterlab/services", "vscode-languageserver-protocol", "@vscode/debugprotocol"])
      expect(loaded, name).not.toContain(name);
  });
});

describe("what a bundler keeps", () => {
  it("sideEffects: false — a harness bundling one helper keeps that helper's module, not the modules around it", async () => {
    const { build } = await import("esbuild");
    const bundled = await build({
      stdin: { contents: `export { defineTool } from ${index};`, resolveDir: ROOT, loader: "ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const [output] = Object.values(bundled.metafile.outputs);
    const kept = Object.entries(output!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file)
      .sort();
    // Without the flag, every module the index reaches that has a top-level statement was kept (36 here).
    expect(kept).toEqual(["src/index.ts", "src/registry.ts"]);
  });
});
