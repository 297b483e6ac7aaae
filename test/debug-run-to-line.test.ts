/**
 * debug run_to_line and snapshot (issue 45, part of 2) on debugpy, delve, lldb and runbound's Node adapter:
 * run_to_line continues to a line through a breakpoint of runbound's own that is gone again at the stop (the file's
 * own kept: a conditional one on that very line stops later, as set); snapshot records a loop's values at each hit
 * in one call, to max_hits or the program's end; and their refusals.
 */
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { call, textOf, workdirWith } from "./helpers.js";

interface Case {
  adapter: string;
  files: Record<string, string>;
  build?: (dir: string) => void;
  program: string;
  source: string;
  first: number;
  inside: number;
  condition: string;
}

const CASES: Case[] = [
  {
    adapter: "debugpy",
    files: {
      "pyproject.toml": '[project]\nname = "loop"\n',
      "loop.py":
        "total = 0\nfor i in range(25):\n    total += i * 2\n    print(total)\nprint('done', total)\n",
    },
    program: "loop.py",
    source: "loop.py",
    first: 1,
    inside: 4,
    condition: "i == 2",
  },
  {
    adapter: "delve",
    files: {
      "go.mod": "module loop\n\ngo 1.21\n",
      "main.go":
        'package main\n\nimport "fmt"\n\nfunc main() {\n\ttotal := 0\n\tfor i := 0; i < 25; i++ {\n\t\ttotal += i * 2\n\t\tfmt.Println(total)\n\t}\n\tfmt.Println("done", total)\n}\n',
    },
    program: ".",
    source: "main.go",
    first: 6,
    inside: 9,
    condition: "i == 2",
  },
  {
    adapter: "lldb",
    files: {
      Makefile: "loop: loop.c\n\tgcc -g -O0 -o loop loop.c\n",
      "loop.c":
        '#include <stdio.h>\nint main(void) {\n  int total = 0;\n  for (int i = 0; i < 25; i++) {\n    total += i * 2;\n    printf("%d\\n", total);\n  }\n  printf("done %d\\n", total);\n  return 0;\n}\n',
    },
    build: (dir) => execFileSync("gcc", ["-g", "-O0", "-o", "loop", "loop.c"], { cwd: dir }),
    program: "loop",
    source: "loop.c",
    first: 3,
    inside: 6,
    condition: "i == 2",
  },
  {
    adapter: "node",
    files: {
      "package.json": "{}",
      "loop.js":
        "let total = 0;\nfor (let i = 0; i < 25; i++) {\n  total += i * 2;\n  console.log(total);\n}\nconsole.log('done', total);\n",
    },
    program: "loop.js",
    source: "loop.js",
    first: 1,
    inside: 4,
    condition: "i === 2",
  },
];

describe("debug run_to_line", () => {
  let run: Run | undefined;
  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  for (const c of CASES) {
    it(`${c.adapter}: runs to a line in a loop once; the file's own conditional breakpoint there still stops later`, async () => {
      const workdir = await workdirWith(c.files);
      c.build?.(workdir);
      run = await createRun({
        workdir,
        conversationId: `run-to-line-${c.adapter}`,
        approver: "always",
        lsp: false,
      });
      const client = await run.link({ surface: "full" });
      const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
      await debug({
        operation: "breakpoints",
        file: c.source,
        breakpoints: [{ line: c.first }, { line: c.inside, condition: c.condition }],
      });
      try {
        expect(await debug({ operation: "launch", program: c.program })).toMatch(
          new RegExp(`${c.source}:${c.first}\\b`),
        );
        const ran = await debug({ operation: "run_to_line", file: c.source, line: c.inside });
        expect(ran).toMatch(new RegExp(`^Ran to ${c.source}:${c.inside}; no breakpoint is left there\\.\\n`));
        expect(ran).toMatch(/\bi = 0\b/);
        // The plain breakpoint of run_to_line is gone; the file's own, with its condition, stops at i == 2.
        const next = await debug({ operation: "continue" });
        expect(next).toMatch(new RegExp(`${c.source}:${c.inside}\\b`));
        expect(next).toMatch(/\bi = 2\b/);
        expect(await debug({ operation: "continue" })).toMatch(/exited/i);
      } finally {
        await debug({ operation: "terminate" }).catch(() => undefined);
      }
    });
  }

  for (const c of CASES) {
    it(`${c.adapter}: snapshot records 20 hits of a loop in one call, then the hits where a condition holds to the end`, async () => {
      const workdir = await workdirWith(c.files);
      c.build?.(workdir);
      run = await createRun({
        workdir,
        conversationId: `snapshot-${c.adapter}`,
        approver: "always",
        lsp: false,
      });
      const client = await run.link({ surface: "full" });
      const debug = async (args: Record<string, unknown>) => textOf(await call(client, "debug", args));
      await debug({ operation: "breakpoints", file: c.source, lines: [c.first] });
      try {
        await debug({ operation: "launch", program: c.program });
        const twenty = await call(client, "debug", {
          operation: "snapshot",
          file: c.source,
          line: c.inside,
          expressions: ["i", "total"],
        });
        const text = textOf(twenty);
        expect(text).toMatch(
          new RegExp(
            `^Snapshot at ${c.source}:${c.inside}: 20 hits \\(max_hits 20 reached; the program is stopped at the last hit\\)\\.\\n#1  i = 0; total = 0  — `,
          ),
        );
        expect(text).toContain("\n#20  i = 19; total = 380  — ");
        const hits = (twenty.structuredContent as { hits: { values: { value: string }[] }[] }).hits;
        expect(hits.map((h) => h.values[0]!.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
        // From the last hit on, only where the condition holds (i is 21 to 24), the frame's locals, to the end.
        const rest = await debug({
          operation: "snapshot",
          file: c.source,
          line: c.inside,
          condition: "i > 20",
        });
        expect(rest).toMatch(
          new RegExp(
            `^Snapshot at ${c.source}:${c.inside}: 4 hits \\(the program exited\\)\\.\\n#1  .*\\bi = 21\\b`,
          ),
        );
        expect(rest).toMatch(/\n#4 {2}.*\bi = 24\b/);
      } finally {
        await debug({ operation: "terminate" }).catch(() => undefined);
      }
    });
  }

  it("is refused without a session, without `line`, and past the end of the file — nothing changed", async () => {
    const workdir = await workdirWith(CASES[0]!.files);
    run = await createRun({
      workdir,
      conversationId: "run-to-line-refusals",
      approver: "always",
      lsp: false,
    });
    const client = await run.link({ surface: "full" });
    const debug = async (args: Record<string, unknown>) => call(client, "debug", args);
    expect(textOf(await debug({ operation: "run_to_line", file: "loop.py" }))).toBe(
      "run_to_line needs `line` (the 1-based line).",
    );
    expect(textOf(await debug({ operation: "snapshot", line: 4 }))).toBe(
      "snapshot needs `file` (the source file).",
    );
    expect(textOf(await debug({ operation: "run_to_line", file: "loop.py", line: 4 }))).toMatch(
      /^No debug session is running\. run_to_line needs one: launch a program first/,
    );
    await debug({ operation: "breakpoints", file: "loop.py", lines: [1] });
    await debug({ operation: "launch", program: "loop.py" });
    try {
      const past = await debug({ operation: "run_to_line", file: "loop.py", line: 40 });
      expect(past.isError).toBe(true);
      expect(textOf(past)).toBe("`line` 40 is past the end of loop.py (5 lines); no breakpoint was changed.");
      // Still stopped where it was.
      expect(textOf(await debug({ operation: "status" }))).toMatch(/loop\.py:1\b/);
    } finally {
      await debug({ operation: "terminate" }).catch(() => undefined);
    }
  });
});
