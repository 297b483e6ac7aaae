/**
 * An empty or short list is not an absence when the server had not finished: references asked while rust-analyzer
 * is indexing (its own progress reports, on a workspace large enough to take seconds) say so and are not called
 * complete; asked again once it is ready, the same references are complete. A diagnostics check that runs out of
 * time on a real server (pyright) is never a clean bill.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

/** A workspace of eight library crates of 12,000 functions each (indexing takes seconds) and an app using them. */
async function bigWorkspace(): Promise<string> {
  const parts = Array.from({ length: 8 }, (_, i) => `part${i}`);
  const dir = await workdirWith({
    "Cargo.toml": `[workspace]\nmembers = ["app", ${parts.map((p) => `"${p}"`).join(", ")}]\nresolver = "2"\n`,
    "app/Cargo.toml": `[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n[dependencies]\n${parts.map((p) => `${p} = { path = "../${p}" }`).join("\n")}\n`,
    "app/src/main.rs": [
      "pub fn helper(x: i32) -> i32 { x + 1 }",
      "fn main() {",
      "    let a = helper(part0::g1(1));",
      "    let b = helper(part7::g2(a));",
      '    println!("{}", helper(b));',
      "}",
      "",
    ].join("\n"),
  });
  for (const part of parts) {
    mkdirSync(path.join(dir, part, "src"), { recursive: true });
    writeFileSync(
      path.join(dir, part, "Cargo.toml"),
      `[package]\nname = "${part}"\nversion = "0.1.0"\nedition = "2021"\n`,
    );
    const fns = Array.from({ length: 12_000 }, (_, i) => `pub fn g${i}(y: i32) -> i32 { y * ${i} }`);
    writeFileSync(path.join(dir, part, "src", "lib.rs"), `${fns.join("\n")}\n`);
  }
  return dir;
}

describe("a list answer says whether it is complete", () => {
  it("references asked while rust-analyzer indexes say so and are not complete; once it is ready they are", async () => {
    const workdir = await bigWorkspace();
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        kernels: false,
        lsp: { timeouts: { requestMs: 1000 } },
      }),
    );
    const link = await run.link({ surface: "plan" });
    const refs = { action: "references", file: "app/src/main.rs", line: 1, symbol: "helper" };
    // Starts the server; its progress shows in `lsp status` as it loads and indexes.
    const starting = call(link, "lsp", {
      action: "hover",
      file: "app/src/main.rs",
      line: 1,
      symbol: "helper",
    });
    let status = "";
    for (let i = 0; i < 600 && !/indexing \(.*Indexing/.test(status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = textOf(await call(link, "lsp", { action: "status" }));
      if (/rust-analyzer @ \S+: ready/.test(status)) break;
    }
    expect(status, "rust-analyzer's Indexing progress was never seen").toMatch(/indexing \(.*Indexing/);
    const during = await call(link, "lsp", refs);
    expect(during.isError, textOf(during)).toBeFalsy();
    expect(during.structuredContent).toMatchObject({ complete: false });
    expect(textOf(during)).toMatch(
      /\nIncomplete: (.*; )?rust-analyzer \([^)]*Indexing[^)]*\) was still indexing, so what it had not reached may be missing; ask again once `lsp status` shows it ready\.$/m,
    );
    await starting;
    // rust-analyzer indexes in phases (ready between them, for a moment): every answer until it is done says so.
    let after = during;
    for (let i = 0; i < 300 && (after.structuredContent as { complete?: boolean }).complete !== true; i++) {
      expect(textOf(after)).toMatch(/\nIncomplete: .*was still indexing/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await call(link, "lsp", refs);
    }
    expect(textOf(after)).toMatch(/^4 references in 1 file:\n/);
    expect(textOf(after)).not.toContain("Incomplete");
    expect(after.structuredContent).toMatchObject({ complete: true, total: 4 });
  }, 240_000);

  it("a diagnostics check pyright does not finish in time is stale and incomplete, never a clean bill", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": "[project]\nname = 'x'\n",
      "a.py": "x: int = 'text'\n",
    });
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        kernels: false,
        lsp: { timeouts: { diagnosticsMs: 1 } },
      }),
    );
    const result = await call(await run.link({ surface: "plan" }), "lsp", {
      action: "diagnostics",
      file: "a.py",
    });
    const text = textOf(result);
    expect(text).toMatch(/^Diagnostics \(pyright, (STALE|NOT READY): .*not a clean bill\)/);
    expect(text).not.toMatch(/no errors or warnings/);
    expect(text).toMatch(/\nIncomplete: the diagnostics are (stale|not ready) \(.+\), not a clean bill\.$/);
    expect(result.structuredContent).toMatchObject({ complete: false });
    // With time to finish, the same check finds the error: the stale answer had missed it.
    const patient = track(await createRun({ workdir, approver: "always", kernels: false }));
    const fresh = await call(await patient.link({ surface: "plan" }), "lsp", {
      action: "diagnostics",
      file: "a.py",
    });
    expect(textOf(fresh)).toMatch(/^Diagnostics \(pyright, fresh\): 1 error/);
    expect(fresh.structuredContent).toMatchObject({ complete: true });
  });
});
