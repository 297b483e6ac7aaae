/**
 * The breakpoints that stop only when it matters, on debugpy, delve, lldb and Node: a condition, a hit count, a logpoint
 * that prints and never stops, a function breakpoint, an exception filter; set_variable changing what the program
 * then prints; watch expressions at every stop. The same loop program in each language.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { cacheFolder } from "../src/setup/home.mjs";
import { call, suiteWorkdir, textOf } from "./helpers.js";

const FILES = {
  "pyproject.toml": "",
  "loop.py": [
    "def step(i):",
    "    return i * 2",
    "",
    "total = 0",
    "for i in range(10):",
    "    total += step(i)",
    '    print("i", i)',
    'print("total", total)',
    "",
  ].join("\n"),
  "raise.py": [
    "def check(n):",
    "    if n > 2:",
    '        raise ValueError(f"too big: {n}")',
    "    return n",
    "",
    "try:",
    "    check(5)",
    "except ValueError:",
    '    print("caught")',
    "check(7)",
    "",
  ].join("\n"),
  "go/go.mod": "module example.com/loop\n\ngo 1.22\n",
  "go/main.go": [
    "package main",
    "",
    'import "fmt"',
    "",
    "func step(i int) int {",
    "\treturn i * 2",
    "}",
    "",
    "func main() {",
    "\ttotal := 0",
    "\tfor i := 0; i < 10; i++ {",
    "\t\ttotal += step(i)",
    '\t\tfmt.Println("i", i)',
    "\t}",
    '\tfmt.Println("total", total)',
    "}",
    "",
  ].join("\n"),
  "gopanic/go.mod": "module example.com/gopanic\n\ngo 1.22\n",
  "gopanic/main.go": [
    "package main",
    "",
    "func check(n int) int {",
    "\tif n > 2 {",
    '\t\tpanic("too big")',
    "\t}",
    "\treturn n",
    "}",
    "",
    "func main() {",
    "\tcheck(7)",
    "}",
    "",
  ].join("\n"),
  "js/package.json": "{}\n",
  "js/loop.js": [
    "function step(i) {",
    "  return i * 2;",
    "}",
    "",
    "let total = 0;",
    "for (let i = 0; i < 10; i++) {",
    "  total += step(i);",
    '  console.log("i", i);',
    "}",
    'console.log("total", total);',
    "",
  ].join("\n"),
  "js/raise.js": [
    "function check(n) {",
    '  if (n > 2) throw new Error("too big: " + n);',
    "  return n;",
    "}",
    "",
    "try {",
    "  check(5);",
    "} catch {",
    '  console.log("caught");',
    "}",
    "check(7);",
    "",
  ].join("\n"),
  "c/CMakeLists.txt": "",
  "c/loop.cpp": [
    "#include <cstdio>",
    "#include <stdexcept>",
    "static int step(int i) { return i * 2; }",
    "int main() {",
    "  int total = 0;",
    "  for (int i = 0; i < 10; i++) {",
    "    total += step(i);",
    '    std::printf("i %d\\n", i);',
    "  }",
    '  std::printf("total %d\\n", total);',
    "  return 0;",
    "}",
    "",
  ].join("\n"),
  "c/throw.cpp": [
    "#include <stdexcept>",
    "static int check(int n) {",
    '  if (n > 2) throw std::runtime_error("too big");',
    "  return n;",
    "}",
    "int main() { return check(7); }",
    "",
  ].join("\n"),
};

interface Case {
  adapter: string;
  program: string;
  file: string;
  /** The loop's line that calls step, the line that prints the total, the line that raises. */
  loopLine: number;
  totalLine: number;
  raiseLine: number;
  hit: string;
  /** A function breakpoint's name; none where the adapter offers none (V8 has no such breakpoint). */
  fn: string | undefined;
  /** How the adapter names the function in a frame. */
  frame: RegExp;
  exception: { program: string; file: string; filters: string[] };
}

const CASES: Case[] = [
  {
    adapter: "debugpy",
    program: "loop.py",
    file: "loop.py",
    loopLine: 6,
    totalLine: 8,
    raiseLine: 3,
    hit: "7",
    fn: "step",
    frame: /in step$/m,
    exception: { program: "raise.py", file: "raise.py", filters: ["uncaught"] },
  },
  {
    adapter: "delve",
    program: "go",
    file: "go/main.go",
    loopLine: 12,
    totalLine: 15,
    raiseLine: 5,
    hit: "== 7",
    fn: "main.step",
    frame: /in main\.step$/m,
    exception: { program: "gopanic", file: "gopanic/main.go", filters: ["unrecovered-panic"] },
  },
  {
    adapter: "lldb",
    program: "c/loop",
    file: "c/loop.cpp",
    loopLine: 7,
    totalLine: 10,
    raiseLine: 3,
    hit: "7",
    fn: "step",
    frame: /in (::)?step\(int\)$/m,
    exception: { program: "c/throw", file: "c/throw.cpp", filters: ["cpp_throw"] },
  },
  {
    adapter: "node",
    program: "js/loop.js",
    file: "js/loop.js",
    loopLine: 7,
    totalLine: 10,
    raiseLine: 2,
    hit: "7",
    fn: undefined,
    frame: /in step$/m,
    exception: { program: "js/raise.js", file: "js/raise.js", filters: ["uncaught"] },
  },
];

for (const c of CASES) {
  describe(`breakpoints that stop only when it matters, with ${c.adapter}`, () => {
    let run: Run;
    let client: RunLink;
    let remove: () => Promise<void>;
    const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
    beforeAll(async () => {
      const dir = await suiteWorkdir(FILES);
      remove = dir.remove;
      for (const name of ["loop", "throw"])
        execFileSync("g++", [
          "-g",
          "-O0",
          "-o",
          path.join(dir.dir, `c/${name}`),
          path.join(dir.dir, `c/${name}.cpp`),
        ]);
      run = await createRun({ workdir: dir.dir, conversationId: "bp", approver: "always", lsp: false });
      client = await run.link({ surface: "full" });
    });
    afterAll(async () => {
      await run?.dispose();
      await remove?.();
    });
    /** Launches, checks the first answer, and ends the session with its breakpoints cleared. */
    const session = async (
      set: Record<string, unknown>,
      check: (launched: string) => Promise<void>,
      program = c.program,
    ) => {
      await debug({ operation: "breakpoints", ...set });
      try {
        await check(await debug({ operation: "launch", program }));
      } finally {
        await debug({ operation: "terminate" });
        await debug({ operation: "breakpoints", file: c.file, lines: [] });
        await debug({ operation: "breakpoints", function_breakpoints: [] });
        await debug({ operation: "watch", watch: [] });
      }
    };

    it("a condition that holds on the 7th iteration stops there and not before, and not again", async () => {
      await session(
        { file: c.file, breakpoints: [{ line: c.loopLine, condition: "i == 6" }] },
        async (launched) => {
          expect(launched).toMatch(
            new RegExp(`Stopped \\(breakpoint\\) in thread \\d+ at ${c.file}:${c.loopLine} `),
          );
          expect(launched).toMatch(/Locals: .*\bi = 6\b/);
          expect(await debug({ operation: "continue" })).toMatch(/^The program exited/);
        },
      );
    });

    it("a hit condition stops on the 7th hit", async () => {
      await session(
        { file: c.file, breakpoints: [{ line: c.loopLine, hit_condition: c.hit }] },
        async (launched) => {
          expect(launched).toMatch(/Locals: .*\bi = 6\b/);
        },
      );
    });

    it("a logpoint prints 10 lines and never stops; they are in the answer and in output", async () => {
      await session(
        { file: c.file, breakpoints: [{ line: c.loopLine, log_message: "at {i}" }] },
        async (launched) => {
          expect(launched).toMatch(/The program exited/);
          expect(launched).toContain(
            `Logpoints printed 10 lines since the last answer:\n${Array.from({ length: 10 }, (_, i) => `  at ${i}`).join("\n")}`,
          );
          const output = await debug({ operation: "output" });
          for (let i = 0; i < 10; i++) expect(output).toMatch(new RegExp(`at ${i}\r?\n`));
        },
      );
    });

    if (c.fn === undefined)
      it("a function breakpoint is refused before anything is sent, saying the adapter offers none", async () => {
        await debug({ operation: "breakpoints", function_breakpoints: ["step"] });
        await session({ file: c.file, lines: [c.loopLine] }, async (launched) => {
          expect(launched).toMatch(/Stopped \(breakpoint\)/);
          expect(await debug({ operation: "breakpoints", function_breakpoints: ["step"] })).toMatch(
            new RegExp(`^${c.adapter} does not support function breakpoints`),
          );
        });
      });
    else
      it("a function breakpoint stops in the function; watches are shown at each stop", async () => {
        await debug({ operation: "breakpoints", function_breakpoints: [c.fn] });
        expect(await debug({ operation: "watch", watch: ["i * 10"] })).toBe(
          "Watching `i * 10` at every stop.",
        );
        await session({ file: c.file, lines: [] }, async (launched) => {
          expect(launched).toMatch(c.frame);
          expect(launched).toContain("\nWatch: i * 10 = 0");
          const next = await debug({ operation: "continue" });
          expect(next).toMatch(c.frame);
          // lldb stops twice in a one-line function (before and after its prologue): a value, whichever it is.
          expect(next).toMatch(/\nWatch: i \* 10 = \d+/);
        });
      });

    it("set_variable changes what the program then prints", async () => {
      await session({ file: c.file, lines: [c.totalLine] }, async (launched) => {
        expect(launched).toMatch(new RegExp(`at ${c.file}:${c.totalLine} `));
        expect(await debug({ operation: "set_variable", name: "total", value: "1000" })).toMatch(
          /^total = 1000\b/,
        );
        await debug({ operation: "continue" });
        // The program's last line may come after the answer to continue (its output is its own stream).
        let output = "";
        for (let i = 0; i < 50 && !/total/.test(output); i++) {
          output = await debug({ operation: "output" });
          if (!/total/.test(output)) await new Promise((r) => setTimeout(r, 100));
        }
        expect(output).toMatch(/total 1000\r?\n/);
      });
    });

    if (c.adapter === "delve")
      it("confined, delve builds with a Go build cache of this workdir's in runbound's cache folder (the home's own is hidden, runbound's home read-only)", async () => {
        const dir = path.join(
          cacheFolder(),
          "go-build",
          createHash("sha256").update(run.workdir).digest("hex").slice(0, 16),
        );
        await session({ file: c.file, lines: [c.loopLine] }, async (launched) => {
          expect(launched).toMatch(/Stopped \(breakpoint\)/);
        });
        // The launch built the program there: the cache is laid out as Go lays one out.
        expect(existsSync(path.join(dir, "README")), dir).toBe(true);
      });

    it("an exception filter stops where it is raised", async () => {
      await session(
        { exception_breakpoints: c.exception.filters },
        async (launched) => {
          expect(launched).toMatch(/Stopped \(exception\)/);
          expect(launched).toMatch(new RegExp(`${c.exception.file}:${c.raiseLine}\\b`));
        },
        c.exception.program,
      );
    });
  });
}
