/**
 * A harness whose PATH has an empty entry (the current folder) or relative ones (`.venv/bin`, `node_modules/.bin`,
 * common in developer shells) ran the untrusted repository's own `./python` for pyright, `./cargo` for
 * rust-analyzer and `./go` for gopls — from a plan hover, a read-tier call. No repository binary may run, for any
 * server, whatever the harness's PATH; every answer still comes.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

/** The programs servers run by name, each planted where a relative PATH entry finds it. */
const PLANTED = [
  "python",
  "python3",
  "go",
  "cargo",
  "rustc",
  "rustup",
  "node",
  "clang",
  "gcc",
  "cc",
  "clangd",
];
const PLACES = [".", "bin", ".venv/bin", "node_modules/.bin"];

const PROJECT = {
  "pyproject.toml": "",
  "app.py": "def greet(name):\n    return name\n",
  "go.mod": "module planted\n\ngo 1.21\n",
  "main.go": "package main\n\nfunc main() {}\n",
  "Cargo.toml": '[package]\nname = "planted"\nversion = "0.1.0"\nedition = "2021"\n',
  "src/main.rs": 'fn helper() -> i32 {\n    1\n}\n\nfn main() {\n    println!("{}", helper());\n}\n',
  "web/package.json": "{}",
  "web/tsconfig.json": "{}",
  "web/a.ts": "export const answer = 42;\n",
  "c/compile_flags.txt": "-std=c11\n",
  "c/a.c": "int twice(int x) { return 2 * x; }\n",
};

describe("isolation: a harness PATH with empty and relative entries", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.PATH;
    process.env.PATH = `:${saved}:.:bin:.venv/bin:node_modules/.bin`;
  });
  afterEach(() => {
    process.env.PATH = saved;
  });

  it("pyright, gopls, rust-analyzer, tsgo and clangd answer and run none of the repository's binaries", async () => {
    const workdir = await workdirWith(PROJECT);
    const marks = path.join(workdir, "RAN");
    for (const place of PLACES) {
      await mkdir(path.join(workdir, place), { recursive: true });
      for (const name of PLANTED) {
        const file = path.join(workdir, place, name);
        await writeFile(file, `#!/bin/sh\necho "${place}/${name} $*" >> "${marks}"\nexit 1\n`);
        await chmod(file, 0o755);
      }
    }
    const run = track(await createRun({ workdir, kernels: false }));
    const plan = await run.link({ surface: "plan" });
    const ask = async (file: string, line: number, symbol: string) =>
      textOf(await call(plan, "lsp", { action: "hover", file, line, symbol }));
    const answers = [
      await ask("app.py", 1, "greet"),
      await ask("main.go", 3, "main"),
      await ask("src/main.rs", 6, "helper"),
      await ask("web/a.ts", 1, "answer"),
      await ask("c/a.c", 1, "twice"),
    ];
    await call(plan, "lsp", { action: "diagnostics", file: "*" });
    const ran = await readFile(marks, "utf8").catch(() => "");
    expect(ran, "the repository's binaries that ran").toBe("");
    const expected = [/def greet\(name/, /func main\(\)/, /fn helper\(\) -> i32/, /answer: 42/, /twice/];
    for (const [i, answer] of answers.entries()) expect(answer).toMatch(expected[i]!);
  }, 180_000);
});
