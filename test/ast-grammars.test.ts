/**
 * Every grammar ast-grep publishes, in ast_grep and ast_edit: a pattern, a rule and a staged rewrite in each language
 * runbound did not have before (the differential test, ast-reference, compares both tools with ast-grep's CLI on
 * generated cases in all of them). The grammars outside runbound's install come from runbound's home
 * (`runbound setup --only grammars`); without it, a call in such a language answers with that command.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GRAMMAR_PACKAGES } from "../grammars/index.js";
import { createRun } from "../src/index.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";
import { ROOT } from "./packaging.js";

interface Sample {
  readonly file: string;
  readonly source: string;
  readonly pattern: string;
  /** What the pattern matches in the source. */
  readonly matched: string;
  readonly rule: Record<string, unknown>;
  /** What the rule matches. */
  readonly ruled: string;
  readonly rewrite: string;
  readonly after: string;
  readonly language?: string;
}

const SAMPLES: Record<string, Sample> = {
  csharp: {
    file: "A.cs",
    source: "class A {\n  void F(string x) {\n    Console.WriteLine(x);\n  }\n}\n",
    pattern: "Console.WriteLine($A)",
    matched: "Console.WriteLine(x)",
    rule: { kind: "method_declaration", has: { kind: "identifier", regex: "^F$" } },
    ruled: "void F(string x) {",
    rewrite: "Log.Info($A)",
    after: "class A {\n  void F(string x) {\n    Log.Info(x);\n  }\n}\n",
  },
  elixir: {
    file: "a.ex",
    source: "defmodule A do\n  def f(x), do: IO.puts(x)\nend\n",
    pattern: "IO.puts($A)",
    matched: "IO.puts(x)",
    rule: { kind: "call", has: { kind: "identifier", regex: "^defmodule$" } },
    ruled: "defmodule A do",
    rewrite: "Logger.info($A)",
    after: "defmodule A do\n  def f(x), do: Logger.info(x)\nend\n",
  },
  haskell: {
    file: "A.hs",
    source: "main :: IO ()\nmain = putStrLn (show 42)\n",
    pattern: "putStrLn $A",
    matched: "putStrLn (show 42)",
    rule: { kind: "signature" },
    ruled: "main :: IO ()",
    rewrite: "hPutStrLn stderr $A",
    after: "main :: IO ()\nmain = hPutStrLn stderr (show 42)\n",
  },
  lua: {
    file: "a.lua",
    source: "local x = 1\nprint(x)\n",
    pattern: "print($A)",
    matched: "print(x)",
    rule: { kind: "variable_declaration" },
    ruled: "local x = 1",
    rewrite: "log($A)",
    after: "local x = 1\nlog(x)\n",
  },
  php: {
    file: "a.php",
    source: "<?php\nfunction f($s) {\n  echo strlen($s);\n}\n",
    // A pattern alone is read after `<?php` (runbound's ladder), as ast-grep's CLI reads PHP.
    pattern: "strlen($A)",
    matched: "strlen($s)",
    rule: { kind: "echo_statement" },
    ruled: "echo strlen($s);",
    rewrite: "mb_strlen($A)",
    after: "<?php\nfunction f($s) {\n  echo mb_strlen($s);\n}\n",
  },
  scala: {
    file: "A.scala",
    source: "object A {\n  def f(x: Int) = println(x)\n}\n",
    pattern: "println($A)",
    matched: "println(x)",
    rule: { kind: "object_definition" },
    ruled: "object A {",
    rewrite: "log($A)",
    after: "object A {\n  def f(x: Int) = log(x)\n}\n",
  },
  sql: {
    file: "a.sql",
    source: "DELETE FROM counts WHERE count = 0;\n",
    pattern: "DELETE FROM $T WHERE $C",
    matched: "DELETE FROM counts WHERE count = 0",
    rule: { kind: "delete" },
    ruled: "DELETE",
    rewrite: "DELETE FROM $T WHERE $C AND archived",
    after: "DELETE FROM counts WHERE count = 0 AND archived;\n",
  },
  swift: {
    file: "a.swift",
    source: "func f(x: Int) {\n  print(x)\n}\n",
    pattern: "print($A)",
    matched: "print(x)",
    rule: { kind: "function_declaration" },
    ruled: "func f(x: Int) {",
    rewrite: "debugPrint($A)",
    after: "func f(x: Int) {\n  debugPrint(x)\n}\n",
  },
  toml: {
    file: "Cargo.toml",
    source: '[package]\nname = "a"\nversion = "0.1.0"\n',
    pattern: 'version = "0.1.0"',
    matched: 'version = "0.1.0"',
    rule: { kind: "table" },
    ruled: "[package]",
    rewrite: 'version = "0.2.0"',
    after: '[package]\nname = "a"\nversion = "0.2.0"\n',
  },
  markdown: {
    file: "README.md",
    // The block grammar: a heading, a list, a fenced code block (its inline text is not parsed further).
    source: "# Title\n\n```sh\nnpm test\n```\n",
    pattern: "# Title",
    matched: "# Title",
    rule: { kind: "fenced_code_block" },
    ruled: "```sh",
    // A heading's node takes in its line's end (the grammar's): the rewrite gives it back.
    rewrite: "## Title\n",
    after: "## Title\n\n```sh\nnpm test\n```\n",
  },
  angular: {
    file: "a.component.html",
    source: '<p *ngIf="ready">{{ name }}</p>\n',
    pattern: "{{ $A }}",
    matched: "{{ name }}",
    rule: { kind: "structural_directive" },
    ruled: '*ngIf="ready"',
    rewrite: "{{ $A | uppercase }}",
    after: '<p *ngIf="ready">{{ name | uppercase }}</p>\n',
    // Angular's templates are .html: the language is named, as the CLI's languageGlobs would name it.
    language: "angular",
  },
};

describe("every grammar ast-grep publishes", () => {
  for (const [id, s] of Object.entries(SAMPLES)) {
    it(`${id}: a pattern and a rule match, and ast_edit stages a rewrite that resolve writes`, async () => {
      const workdir = await workdirWith({ [s.file]: s.source });
      const run = track(await createRun({ workdir, approver: "always", lsp: false }));
      const client = await run.link({ surface: "full" });
      const where = { path: s.file, ...(s.language ? { language: s.language } : {}) };
      const found = textOf(await call(client, "ast_grep", { pattern: s.pattern, ...where }));
      expect(found).toMatch(new RegExp(`^1 match in 1 file \\(searched 1 ${id} file`));
      expect(found).toContain(s.matched);
      const ruled = textOf(await call(client, "ast_grep", { rule: s.rule, ...where }));
      expect(ruled).toMatch(/^1 match in 1 file/);
      expect(ruled).toContain(s.ruled);
      const staged = await call(client, "ast_edit", { pattern: s.pattern, rewrite: s.rewrite, ...where });
      expect(staged.isError, textOf(staged)).toBeFalsy();
      expect(await treeOf(workdir)).toEqual({ [s.file]: s.source });
      await call(client, "resolve", { edit_id: "edit_1", action: "accept" });
      expect(await treeOf(workdir)).toEqual({ [s.file]: s.after });
    });
  }

  it("the install carries python and json; every other dynamic grammar comes from runbound's home", () => {
    const core = Object.entries(GRAMMAR_PACKAGES)
      .filter(([, p]) => p.core)
      .map(([id]) => id);
    expect(core).toEqual(["python", "json"]);
  });

  it("without the home's grammars, a call in such a language answers with the one command that brings them", () => {
    // napi registers a process's grammars once: a process of its own, with a home that has none.
    const home = mkdtempSync(path.join(tmpdir(), "runbound-bare-home-"));
    try {
      const script = `
        import { createRun } from "./src/index.ts";
        import { mkdtempSync, writeFileSync } from "node:fs";
        import { tmpdir } from "node:os";
        import path from "node:path";
        const workdir = mkdtempSync(path.join(tmpdir(), "runbound-kt-"));
        writeFileSync(path.join(workdir, "a.kt"), "fun main() { println(1) }\\n");
        writeFileSync(path.join(workdir, "a.py"), "print(1)\\n");
        const run = await createRun({ workdir, home: ${JSON.stringify(home)}, lsp: false, kernels: false });
        const link = await run.link({ surface: "readonly" });
        const say = async (args) => (await link.callTool({ name: "ast_grep", arguments: args })).content[0].text;
        console.log(JSON.stringify([await say({ pattern: "println($A)", path: "a.kt" }), await say({ pattern: "print($A)", path: "a.py" })]));
        await run.dispose();
      `;
      const out = execFileSync(
        process.execPath,
        ["--import", "tsx/esm", "--input-type=module", "-e", script],
        {
          cwd: ROOT,
          encoding: "utf8",
        },
      );
      const [kotlin, python] = JSON.parse(out.trim().split("\n").at(-1)!) as [string, string];
      expect(kotlin).toBe(
        "The kotlin grammar is not installed: npx runbound setup --only grammars brings it (and every other grammar ast-grep publishes) into runbound's home; a harness started before that loads it when it restarts.",
      );
      expect(python).toMatch(/^1 match in 1 file/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
