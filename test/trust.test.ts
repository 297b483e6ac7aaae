/**
 * An untrusted workspace (the default) runs none of its own code on read-tier calls: not its node_modules/.bin
 * language server, not cargo check (build.rs), not rust-analyzer's build scripts — and says so. Trusted, it does.
 */

import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { ApprovalRequest, Approver } from "../src/approvals.js";
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

  it("untrusted: a rust-toolchain.toml's own toolchain and .cargo/config.toml's rustc and wrapper never run", async () => {
    const project = {
      "Cargo.toml": '[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/main.rs": 'fn helper() -> i32 {\n    1\n}\n\nfn main() {\n    println!("{}", helper());\n}\n',
    };
    // Each program leaves a mark and fails: rustup would run the toolchain's, cargo the config's.
    const leavesMark = (workdir: string, name: string) =>
      `#!/bin/sh\necho "${name} $*" >> "${path.join(workdir, "PWNED")}"\nexit 1\n`;
    const toolchain = await workdirWith(project);
    for (const name of ["rust-analyzer", "cargo", "rustc"]) {
      await mkdir(path.join(toolchain, "own/bin"), { recursive: true });
      await writeFile(path.join(toolchain, "own/bin", name), leavesMark(toolchain, name));
      await chmod(path.join(toolchain, "own/bin", name), 0o755);
    }
    await writeFile(
      path.join(toolchain, "rust-toolchain.toml"),
      `[toolchain]\npath = "${path.join(toolchain, "own")}"\n`,
    );
    const config = await workdirWith(project);
    for (const name of ["wrapper", "rustc"]) {
      await writeFile(path.join(config, name), leavesMark(config, name));
      await chmod(path.join(config, name), 0o755);
    }
    await mkdir(path.join(config, ".cargo"));
    await writeFile(
      path.join(config, ".cargo/config.toml"),
      `[build]\nrustc-wrapper = "${path.join(config, "wrapper")}"\nrustc = "${path.join(config, "rustc")}"\n`,
    );
    for (const workdir of [toolchain, config]) {
      const run = track(await createRun({ workdir, kernels: false }));
      const plan = await run.link({ surface: "plan" });
      const found = textOf(
        await call(plan, "lsp", { action: "definition", file: "src/main.rs", line: 6, symbol: "helper" }),
      );
      expect(found, workdir).toMatch(/^src\/main\.rs:1 {2}fn helper\(\) -> i32 \{/);
      expect(found).toContain("with rustup's default toolchain and cargo's own rustc");
      const marks = existsSync(path.join(workdir, "PWNED"))
        ? await readFile(path.join(workdir, "PWNED"), "utf8")
        : "";
      expect(marks, workdir).toBe("");
      await run.dispose();
    }
  }, 120_000);

  it("untrusted: a write's diagnostics say once that rust-analyzer runs without cargo check (its clean answer is not the checker's)", async () => {
    const workdir = await workdirWith({
      "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/main.rs": 'fn main() {\n    let total = 1 + 2;\n    println!("{total}");\n}\n',
    });
    const run = track(await createRun({ workdir, kernels: false, approver: "always" }));
    const client = await run.link({ surface: "full" });
    const edit = (from: string, to: string) =>
      call(client, "edit", { path: "src/main.rs", old_string: from, new_string: to });
    const first = textOf(await edit("1 + 2", "1 + 3"));
    expect(first).toMatch(/^Diagnostics after this write: /m);
    expect(first).toContain(
      "(workspace not trusted: rust-analyzer runs without build scripts, proc macros and cargo check (each runs the project's code), and with rustup's default toolchain and cargo's own rustc whatever the project's rust-toolchain.toml or .cargo/config.toml name; type errors that only cargo check finds are not reported; lsp status says more)",
    );
    expect(textOf(await edit("1 + 3", "1 + 4"))).not.toContain("not trusted");
  }, 120_000);
});

describe("a go.mod cannot make runbound fetch and run a Go toolchain", () => {
  it('untrusted, gopls runs with GOTOOLCHAIN=local; a go vet that cannot load the module is a failed check, not "0 findings"; gopls\'s refusal is its own answer', async () => {
    const workdir = await workdirWith({
      "go.mod": "module hostile\n\ngo 1.99\n",
      "main.go": "package main\n\nfunc main() {}\n",
    });
    const run = track(await createRun({ workdir, kernels: false }));
    const plan = await run.link({ surface: "plan" });
    const check = textOf(await call(plan, "lsp", { action: "diagnostics", file: "*" }));
    expect(check).toMatch(
      /^ {2}gopls @ \.: failed \(it exited with code 1 and no finding: go: go\.mod requires go >= 1\.99 \(running go [\d.]+; GOTOOLCHAIN=local\)\)$/m,
    );
    const hover = await call(plan, "lsp", { action: "hover", file: "main.go", line: 3, symbol: "main" });
    expect(textOf(hover)).toMatch(
      /^gopls answered textDocument\/hover with an error: no package metadata for file .*main\.go\. That is the server's own answer, not a fault of the arguments\. gopls reported before: ".*go\.mod requires go >= 1\.99 \(running go [\d.]+; GOTOOLCHAIN=local\).* Most often/,
    );
    const gopls = run.processes.running().find((p) => p.label === "gopls language server");
    const environ = (await readFile(`/proc/${gopls!.pid}/environ`, "utf8")).split("\0");
    expect(environ).toContain("GOTOOLCHAIN=local");
    expect(textOf(await call(plan, "lsp", { action: "status" }))).toContain(
      "gopls and go vet use the machine's Go, never a toolchain the go.mod names (it would be downloaded and run)",
    );
  }, 120_000);
});

describe('workspace trust "ask": one question per run, at the first call that would run the project\'s code', () => {
  const recorder = (allow: boolean) => {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (request) => {
      asked.push(request);
      return allow ? { allow: true } : { allow: false, reason: "not this repository" };
    };
    return { asked, approver };
  };

  it("allowed: the plan hover that needs it asks once (exec tier, what would run, who asked); the project's server runs", async () => {
    const { workdir, marker } = await projectWithOwnServer();
    const { asked, approver } = recorder(true);
    const run = track(await createRun({ workdir, kernels: false, trust: "ask", approver }));
    const plan = await run.link({ surface: "plan" });
    const hover = (symbol: string, line: number) =>
      call(plan, "lsp", { action: "hover", file: "app.py", line, symbol });
    const [first, second] = await Promise.all([hover("greet", 1), hover("name", 2)]);
    expect(textOf(first)).toMatch(/def greet\(name/);
    expect(textOf(second)).not.toContain("not trusted");
    expect(existsSync(marker)).toBe(true);
    await hover("greet", 1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: "lsp",
      tier: "exec",
      surface: "plan",
      caller: "model",
      summary:
        "run the workspace's own code for the rest of this run: its own node_modules/.bin/pyright-langserver (as Pyright)",
      arguments: { trust: "workspace" },
    });
  });

  it("denied: nothing of the project runs, status says trust was denied, and it is not asked again", async () => {
    const { workdir, marker } = await projectWithOwnServer();
    const { asked, approver } = recorder(false);
    const run = track(await createRun({ workdir, kernels: false, trust: "ask", approver }));
    const plan = await run.link({ surface: "plan" });
    const before = textOf(await call(plan, "lsp", { action: "status" }));
    expect(before).toMatch(/^Workspace not trusted \(the first call that needs it asks to trust it\)/);
    expect(asked).toHaveLength(0);
    const hover = textOf(
      await call(plan, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" }),
    );
    expect(hover).toMatch(/def greet\(name/);
    expect(hover).toContain("the project's own pyright-langserver is not run (runbound's is)");
    await call(plan, "lsp", { action: "diagnostics", file: "app.py" });
    expect(asked).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
    expect(textOf(await call(plan, "lsp", { action: "status" }))).toMatch(
      /^Workspace not trusted \(trust was asked and denied for this run; createRun\(\{ trust: "workspace" \}\) trusts it\)/,
    );
  });

  it('allowed on diagnostics "*" of a Cargo project: the question names cargo check, which then runs build.rs', async () => {
    const workdir = await workdirWith({
      "Cargo.toml": '[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n',
      "build.rs": `fn main() { std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/PWNED"), "ran").unwrap(); }\n`,
      "src/main.rs": "fn main() {}\n",
    });
    const { asked, approver } = recorder(true);
    const run = track(await createRun({ workdir, kernels: false, trust: "ask", approver }));
    const plan = await run.link({ surface: "plan" });
    const ran = textOf(await call(plan, "lsp", { action: "diagnostics", file: "*" }));
    expect(ran).toMatch(/rust-analyzer @ \.: cargo check --quiet --message-format=json → 0 findings/);
    expect(existsSync(path.join(workdir, "PWNED"))).toBe(true);
    expect(asked.map((a) => a.summary)).toEqual([
      "run the workspace's own code for the rest of this run: rust-analyzer with its build scripts, proc macros and cargo check in .",
    ]);
  }, 120_000);

  it("a call whose arguments are refused asks nobody; a symbol search of the running servers asks nobody either", async () => {
    const { workdir, marker } = await projectWithOwnServer();
    const { asked, approver } = recorder(true);
    const run = track(await createRun({ workdir, kernels: false, trust: "ask", approver }));
    const plan = await run.link({ surface: "plan" });
    const missing = await call(plan, "lsp", { action: "hover", file: "app.py" });
    expect(textOf(missing)).toMatch(/^hover needs `file` and `symbol` .*missing: `symbol`\.$/);
    await call(plan, "lsp", { action: "symbols", query: "greet" });
    await call(plan, "lsp", { action: "reload" });
    expect(asked).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
  });

  it("a workspace with nothing of its own to run is never asked about", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "app.py": "def greet(name):\n    return name\n",
    });
    const { asked, approver } = recorder(true);
    const run = track(await createRun({ workdir, kernels: false, trust: "ask", approver }));
    const plan = await run.link({ surface: "plan" });
    expect(
      textOf(await call(plan, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" })),
    ).toMatch(/def greet\(name/);
    expect(asked).toHaveLength(0);
  });
});
