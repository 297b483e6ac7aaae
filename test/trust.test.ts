/**
 * An untrusted workspace (the default) runs none of its own code on read-tier calls: not its node_modules/.bin
 * language server, not cargo check (build.rs), not rust-analyzer's build scripts — and says so. Trusted, it does.
 */

import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { npmBin } from "../src/setup/npm.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

/** A project whose own pyright-langserver leaves a mark, then serves (it is the real one behind). */
async function projectWithOwnServer(): Promise<{ workdir: string; marker: string }> {
  const workdir = await workdirWith({
    "pyproject.toml": "",
    "app.py": "def greet(name):\n    return name\n",
  });
  const marker = path.join(workdir, "PWNED");
  const bin = path.join(workdir, "node_modules", ".bin");
  await mkdir(bin, { recursive: true });
  const real = npmBin("pyright", "pyright-langserver")!;
  await writeFile(
    path.join(bin, "pyright-langserver"),
    `#!/bin/sh\ntouch "${marker}"\nexec "${process.execPath}" "${real}" "$@"\n`,
  );
  await chmod(path.join(bin, "pyright-langserver"), 0o755);
  return { workdir, marker };
}

describe("workspace trust", () => {
  it("untrusted: a plan hover is served by runbound's pyright, the project's never runs, and both answers say so", async () => {
    const { workdir, marker } = await projectWithOwnServer();
    const run = track(await createRun({ workdir, kernels: false }));
    const plan = await run.link({ surface: "plan" });
    const hover = textOf(
      await call(plan, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" }),
    );
    expect(hover).toMatch(/def greet\(name/);
    expect(hover).toContain(
      "(workspace not trusted: the project's own pyright-langserver is not run (runbound's is); lsp status says more)",
    );
    expect(existsSync(marker)).toBe(false);
    const status = textOf(await call(plan, "lsp", { action: "status" }));
    expect(status).toMatch(
      /^Workspace not trusted \(createRun\(\{ trust: "workspace" \}\) trusts it\): none of its code runs here —\n {2}the project's own pyright-langserver is not run \(runbound's is\)$/m,
    );
  });

  it("trusted: the project's own server is the one that runs", async () => {
    const { workdir, marker } = await projectWithOwnServer();
    const run = track(await createRun({ workdir, kernels: false, trust: "workspace" }));
    const plan = await run.link({ surface: "plan" });
    const hover = textOf(
      await call(plan, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" }),
    );
    expect(hover).toMatch(/def greet\(name/);
    expect(hover).not.toContain("not trusted");
    expect(existsSync(marker)).toBe(true);
  });

  it('untrusted: neither diagnostics "*" nor rust-analyzer runs build.rs; trusted, cargo check does', async () => {
    const workdir = await workdirWith({
      "Cargo.toml": '[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n',
      "build.rs": `fn main() { std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/PWNED"), "ran").unwrap(); }\n`,
      "src/main.rs": 'fn main() {\n    let total = 1 + 2;\n    println!("{total}");\n}\n',
    });
    const marker = path.join(workdir, "PWNED");
    const untrusted = track(await createRun({ workdir, kernels: false }));
    const plan = await untrusted.link({ surface: "plan" });
    const check = textOf(await call(plan, "lsp", { action: "diagnostics", file: "*" }));
    expect(check).toContain(
      "rust-analyzer @ .: not run (cargo check builds and runs the project's build scripts and proc macros, and the workspace is not trusted",
    );
    const hover = textOf(
      await call(plan, "lsp", { action: "hover", file: "src/main.rs", line: 2, symbol: "total" }),
    );
    expect(hover).toContain("rust-analyzer runs without build scripts, proc macros and cargo check");
    // rust-analyzer would have built and run build.rs by now (it does so as it loads the workspace).
    await delay(3000);
    expect(existsSync(marker)).toBe(false);
    await untrusted.dispose();
    const trusted = track(await createRun({ workdir, kernels: false, trust: "workspace" }));
    const full = await trusted.link({ surface: "plan" });
    const ran = textOf(await call(full, "lsp", { action: "diagnostics", file: "*" }));
    expect(ran).toMatch(/rust-analyzer @ \.: cargo check --quiet --message-format=json → 0 findings/);
    expect(existsSync(marker)).toBe(true);
  }, 120_000);
});
