/**
 * call_hierarchy and type_hierarchy against the real servers that advertise them (tsgo, typescript-language-server,
 * pyright, gopls, clangd, rust-analyzer for calls; gopls and clangd for types), and one that does not: the same small program in each
 * language — main → report → total → area, a Shape with a Square beneath it.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { TypeScriptServer } from "../src/lsp/catalog.js";
import type { RunLink } from "../src/run-link.js";
import { call, suiteWorkdir, textOf } from "./helpers.js";

/** clangd's cross-file answers without its background index: said, and not called complete. */
const CLANGD_PARTIAL =
  "clangd runs without its background index (it would write .cache/clangd into the workdir), so it searched the files opened in this run and what they include, not the rest of the project";

interface Case {
  server: string;
  files: Record<string, string>;
  /** Where `total` is defined, and the file whose `main` calls `report`. */
  lib: string;
  main: string;
  lines: { total: number; report: number; main: number; square: number };
  types: boolean;
  typescript?: TypeScriptServer;
}

const CASES: Case[] = [
  {
    server: "tsgo",
    files: {
      "tsconfig.json":
        '{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext" } }\n',
      "package.json": '{ "type": "module" }\n',
      "src/shapes.ts": [
        "export interface Shape {",
        "  area(): number;",
        "}",
        "export class Square implements Shape {",
        "  constructor(readonly side: number) {}",
        "  area(): number {",
        "    return this.side * this.side;",
        "  }",
        "}",
        "export function total(shapes: Shape[]): number {",
        "  return shapes.reduce((sum, s) => sum + s.area(), 0);",
        "}",
        "export function report(shapes: Shape[]): string {",
        "  const first = total(shapes);",
        "  return `total ${first} ${total([])}`;",
        "}",
        "",
      ].join("\n"),
      "src/main.ts": [
        'import { report, Square } from "./shapes.js";',
        "export function main(): void {",
        "  console.log(report([new Square(2)]));",
        "}",
        "",
      ].join("\n"),
    },
    lib: "src/shapes.ts",
    main: "src/main.ts",
    lines: { total: 10, report: 13, main: 2, square: 4 },
    types: false,
  },
  {
    server: "pyright",
    files: {
      "pyproject.toml": '[project]\nname = "shapes"\nversion = "0.1.0"\n',
      "shapes/lib.py": [
        "class Shape:",
        "    def area(self) -> float:",
        "        raise NotImplementedError",
        "class Square(Shape):",
        "    def __init__(self, side: float) -> None:",
        "        self.side = side",
        "    def area(self) -> float:",
        "        return self.side * self.side",
        "def total(shapes: list[Shape]) -> float:",
        "    return sum(s.area() for s in shapes)",
        "def report(shapes: list[Shape]) -> str:",
        "    first = total(shapes)",
        '    return f"total {first} {total([])}"',
        "",
      ].join("\n"),
      "shapes/main.py": [
        "from shapes.lib import Square, report",
        "def main() -> None:",
        "    print(report([Square(2)]))",
        "",
      ].join("\n"),
    },
    lib: "shapes/lib.py",
    main: "shapes/main.py",
    lines: { total: 9, report: 11, main: 2, square: 4 },
    types: false,
  },
  {
    server: "gopls",
    files: {
      "go.mod": "module example.com/shapes\n\ngo 1.22\n",
      "lib.go": [
        "package main",
        "",
        "type Shape interface{ Area() float64 }",
        "type Square struct{ Side float64 }",
        "",
        "func (s Square) Area() float64 { return s.Side * s.Side }",
        "",
        "func total(shapes []Shape) float64 {",
        "\tsum := 0.0",
        "\tfor _, s := range shapes {",
        "\t\tsum += s.Area()",
        "\t}",
        "\treturn sum",
        "}",
        "",
        "func report(shapes []Shape) string {",
        "\tfirst := total(shapes)",
        '\treturn fmt.Sprint("total ", first, total(nil))',
        "}",
        "",
      ]
        .join("\n")
        .replace("package main\n", 'package main\n\nimport "fmt"\n'),
      "main.go": [
        "package main",
        "",
        'import "fmt"',
        "",
        "func main() {",
        "\tfmt.Println(report([]Shape{Square{2}}))",
        "}",
        "",
      ].join("\n"),
    },
    lib: "lib.go",
    main: "main.go",
    lines: { total: 10, report: 18, main: 5, square: 6 },
    types: true,
  },
  {
    server: "clangd",
    files: {
      "compile_flags.txt": "-std=c++17\n",
      "shapes.hpp": [
        "#pragma once",
        "#include <string>",
        "#include <vector>",
        "struct Shape {",
        "  virtual double area() const = 0;",
        "  virtual ~Shape() = default;",
        "};",
        "struct Square : Shape {",
        "  double side;",
        "  explicit Square(double s) : side(s) {}",
        "  double area() const override { return side * side; }",
        "};",
        "double total(const std::vector<const Shape*>& shapes);",
        "std::string report(const std::vector<const Shape*>& shapes);",
        "",
      ].join("\n"),
      "shapes.cpp": [
        '#include "shapes.hpp"',
        "double total(const std::vector<const Shape*>& shapes) {",
        "  double sum = 0;",
        "  for (const Shape* s : shapes) sum += s->area();",
        "  return sum;",
        "}",
        "std::string report(const std::vector<const Shape*>& shapes) {",
        "  double first = total(shapes);",
        '  return "total " + std::to_string(first) + std::to_string(total({}));',
        "}",
        "int main() {",
        "  Square sq(2);",
        "  return report({&sq}).empty();",
        "}",
        "",
      ].join("\n"),
    },
    lib: "shapes.cpp",
    main: "shapes.cpp",
    lines: { total: 2, report: 7, main: 11, square: 8 },
    types: true,
  },
  {
    server: "rust-analyzer",
    files: {
      "Cargo.toml": '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/main.rs": [
        "trait Shape {",
        "    fn area(&self) -> f64;",
        "}",
        "struct Square(f64);",
        "impl Shape for Square {",
        "    fn area(&self) -> f64 {",
        "        self.0 * self.0",
        "    }",
        "}",
        "fn total(shapes: &[&dyn Shape]) -> f64 {",
        "    shapes.iter().map(|s| s.area()).sum()",
        "}",
        "fn report(shapes: &[&dyn Shape]) -> String {",
        "    let first = total(shapes);",
        "    let second = total(&[]);",
        '    format!("total {} {}", first, second)',
        "}",
        "fn main() {",
        "    let text = report(&[&Square(2.0)]);",
        '    println!("{}", text);',
        "}",
        "",
      ].join("\n"),
    },
    lib: "src/main.rs",
    main: "src/main.rs",
    lines: { total: 10, report: 13, main: 18, square: 4 },
    types: false,
  },
];

/** A line of a fixture file as answers quote it (trimmed). */
function line(c: Case, file: string, n: number): string {
  return (c.files[file]!.split("\n")[n - 1] ?? "").trim();
}

/** The note an untrusted workspace adds to a server's first answer, where it has one. */
function trustNote(c: Case): string {
  if (c.server === "gopls")
    return "\n(workspace not trusted: gopls and go vet use the machine's Go, never a toolchain the go.mod names (it would be downloaded and run); lsp status says more)";
  if (c.server === "rust-analyzer")
    return "\n(workspace not trusted: rust-analyzer runs without build scripts, proc macros and cargo check (each runs the project's code), and with rustup's default toolchain and cargo's own rustc whatever the project's rust-toolchain.toml or .cargo/config.toml name; type errors that only cargo check finds are not reported; lsp status says more)";
  return "";
}

// typescript-language-server over the same TypeScript files.
CASES.splice(1, 0, {
  ...CASES[0]!,
  server: "typescript-language-server",
  typescript: "typescript-language-server",
});

for (const c of CASES) {
  describe(`call_hierarchy and type_hierarchy with ${c.server}`, () => {
    let run: Run;
    let client: RunLink;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      const dir = await suiteWorkdir(c.files);
      remove = dir.remove;
      run = await createRun({
        workdir: dir.dir,
        approver: "always",
        lsp: c.typescript ? { typescript: c.typescript } : {},
      });
      client = await run.link({ surface: "readonly" });
    });
    afterAll(async () => {
      await run?.dispose();
      await remove?.();
    });
    const lsp = (args: Record<string, unknown>) => call(client, "lsp", args);

    it("incoming: the callers, each call site a line of the caller", async () => {
      const result = await lsp({
        action: "call_hierarchy",
        file: c.lib,
        line: c.lines.total,
        symbol: "total",
      });
      const { report } = c.lines;
      expect(textOf(result)).toBe(
        [
          `Callers of \`total\` (function, ${c.lib}:${c.lines.total}): 1 caller, 2 call sites`,
          `  report (function) ${c.lib}:${report} — 2 calls`,
          `    ${report + 1}  ${line(c, c.lib, report + 1)}`,
          `    ${report + 2}  ${line(c, c.lib, report + 2)}`,
        ].join("\n") +
          trustNote(c) +
          (c.server === "clangd" ? `\nIncomplete: ${CLANGD_PARTIAL}.` : ""),
      );
      expect(result.structuredContent).toMatchObject({
        complete: c.server !== "clangd",
        action: "call_hierarchy",
        server: c.server,
        total: 2,
        hierarchy: [
          { depth: 0, name: "total", path: c.lib, line: c.lines.total },
          { depth: 1, name: "report", path: c.lib, line: report, parent: 0, sites: [report + 1, report + 2] },
        ],
      });
    });

    it("incoming to depth 3: the caller's callers, one level deeper each", async () => {
      const text = textOf(
        await lsp({ action: "call_hierarchy", file: c.lib, line: c.lines.total, symbol: "total", depth: 3 }),
      );
      expect(text).toMatch(/^Callers of `total` \(function, .*\), 3 levels: 1 caller, 2 call sites\n/);
      expect(text).toContain(`\n    main (function) ${c.main}:${c.lines.main}\n`);
    });

    it("outgoing: what it calls, and what those call", async () => {
      const result = await lsp({
        action: "call_hierarchy",
        file: c.main,
        line: c.lines.main,
        symbol: "main",
        direction: "outgoing",
        depth: 2,
      });
      // clangd answers since version 20 (14 answered "method not found"); setup installs the newest apt offers.
      const text = textOf(result);
      expect(text).toMatch(/^Callees of `main` \(function, .*\), 2 levels: \d+ callees?, \d+ call sites?\n/);
      expect(text).toContain(`\n  report (function) ${c.lib}:${c.lines.report}\n`);
      expect(text).toContain(`\n    total (function) ${c.lib}:${c.lines.total} — 2 calls\n`);
    });

    it(
      c.types ? "type_hierarchy: supertypes and subtypes" : "type_hierarchy: the server does not have it",
      async () => {
        const file = c.server === "clangd" ? "shapes.hpp" : c.lib;
        const up = await lsp({ action: "type_hierarchy", file, line: c.lines.square, symbol: "Square" });
        if (c.server === "gopls") {
          expect(textOf(up)).toBe(
            "Supertypes of `Square` (class, lib.go:6): 1 supertype\n  Shape (interface) lib.go:5",
          );
          const down = await lsp({
            action: "type_hierarchy",
            file,
            line: 5,
            symbol: "Shape",
            direction: "subtypes",
          });
          expect(textOf(down)).toBe(
            "Subtypes of `Shape` (interface, lib.go:5): 1 subtype\n  Square (class) lib.go:6",
          );
        } else if (c.server === "clangd") {
          // clangd 14 answered "method not found" here; 22 answers both directions.
          expect(textOf(up)).toBe(
            "Supertypes of `Square` (struct, shapes.hpp:8): 1 supertype\n  Shape (struct) shapes.hpp:4",
          );
          const down = await lsp({
            action: "type_hierarchy",
            file,
            line: 4,
            symbol: "Shape",
            direction: "subtypes",
          });
          expect(textOf(down)).toBe(
            `Subtypes of \`Shape\` (struct, shapes.hpp:4): 1 subtype\n  Square (struct) shapes.hpp:8\nIncomplete: ${CLANGD_PARTIAL}.`,
          );
        } else {
          expect(up.isError).toBe(true);
          expect(textOf(up)).toMatch(
            /^.+ does not support type hierarchy \(it does not advertise typeHierarchyProvider\)\. (None of the servers running here has it|Of the servers running here, .+ ha(s|ve) it .*)\.$/,
          );
        }
      },
    );
  });
}

describe("call_hierarchy: bad input, cycles and a wide tree (tsgo)", () => {
  const callers = Array.from(
    { length: 60 },
    (_, i) => `export function caller${i}(): number {\n  return leaf();\n}`,
  );
  let run: Run;
  let client: RunLink;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    const dir = await suiteWorkdir({
      "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
      "a.ts": [
        "export function ping(n: number): number {",
        "  return n > 0 ? pong(n - 1) : 0;",
        "}",
        "export function pong(n: number): number {",
        "  return ping(n);",
        "}",
        "export const answer = 42;",
        "export function leaf(): number {",
        "  return answer;",
        "}",
        ...callers,
        "",
      ].join("\n"),
      "b.ts": "export function solo(): number {\n  return 1;\n}\nexport const top = solo();\n",
      "c.ts": [
        "export function say(n: number): void {",
        "  console.log(Math.max(n, 0));",
        "}",
        "export function shout(): void {",
        '  console.log("!");',
        "}",
        "",
      ].join("\n"),
    });
    remove = dir.remove;
    run = await createRun({ workdir: dir.dir, approver: "always" });
    client = await run.link({ surface: "readonly" });
  });
  it("a call at a module's top level: the module named by its relative path, never the machine's", async () => {
    const result = await lsp({ action: "call_hierarchy", file: "b.ts", line: 1, symbol: "solo" });
    const text = textOf(result);
    expect(text).toContain("\n  (module) b.ts:1\n    4  export const top = solo();");
    expect(text).not.toContain(run.workdir);
    expect(JSON.stringify(result.structuredContent)).not.toContain(run.workdir);
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });
  const lsp = (args: Record<string, unknown>) => call(client, "lsp", args);

  it("a library item at the root is followed (its callers here are the answer); one met deeper is named, not followed", async () => {
    const callers = await lsp({ action: "call_hierarchy", file: "c.ts", line: 5, symbol: "console.log" });
    const text = textOf(callers);
    expect(text).toMatch(/^Callers of `log` \(method, \/.+\.d\.ts:\d+\): 2 callers, 2 call sites\n/);
    expect(text).toContain("\n  say (function) c.ts:1\n    2  console.log(Math.max(n, 0));\n");
    expect(text).toContain('\n  shout (function) c.ts:4\n    5  console.log("!");');
    const callees = textOf(
      await lsp({
        action: "call_hierarchy",
        file: "c.ts",
        line: 1,
        symbol: "say",
        direction: "outgoing",
        depth: 2,
      }),
    );
    // Each call site once (tsgo lists each of these twice).
    expect(callees).toMatch(/^Callees of `say` \(function, c\.ts:1\), 2 levels: 2 callees, 2 call sites\n/);
    expect(callees).toMatch(/\n {2}log \(method\) \/.+\.d\.ts:\d+ \(not followed: outside the workdir\)\n/);
    expect(callees).toMatch(/\n {2}max \(method\) \/.+\.d\.ts:\d+ \(not followed: outside the workdir\)\n/);
  });

  it("a cycle is followed once: the item met again says it is shown above", async () => {
    const text = textOf(
      await lsp({ action: "call_hierarchy", file: "a.ts", line: 1, symbol: "ping", depth: 3 }),
    );
    expect(text).toBe(
      [
        "Callers of `ping` (function, a.ts:1), 3 levels: 1 caller, 1 call site",
        "  pong (function) a.ts:4",
        "    5  return ping(n);",
        "    ping (function) a.ts:1 (shown above)",
        "      2  return n > 0 ? pong(n - 1) : 0;",
      ].join("\n"),
    );
  });

  it("a wide tree shows 50 items and says how many there are", async () => {
    const result = await lsp({ action: "call_hierarchy", file: "a.ts", line: 8, symbol: "leaf" });
    const text = textOf(result);
    expect(text).toMatch(/^Callers of `leaf` \(function, a\.ts:8\): 60 callers, 60 call sites\n/);
    expect(text.match(/^ {2}caller\d+ \(function\)/gm)).toHaveLength(49);
    expect(text).toMatch(
      /\n\(showing 50 of 61 items\)\nIncomplete: showing 50 of 61 items \(the answer's limit\)\.$/,
    );
    expect(result.structuredContent).toMatchObject({ total: 61 });
  });

  it("not a function: the server has no item there, and the answer says what to address", async () => {
    const result = await lsp({ action: "call_hierarchy", file: "a.ts", line: 7, symbol: "answer" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^tsgo has no call hierarchy item for `answer` at a\.ts:7: it is not a function/,
    );
  });

  it("by name alone: the one line where it occurs in code, said in the answer; a name on several lines is listed, never guessed", async () => {
    const once = await lsp({ action: "call_hierarchy", file: "a.ts", symbol: "caller7" });
    expect(textOf(once)).toBe(
      'Callers of `caller7` (function, a.ts:32): none (no `line` given: line 32 is the one line where "caller7" occurs in code)',
    );
    expect(once.structuredContent).toMatchObject({ target: { line: 32, identifier: "caller7" } });
    const twice = await lsp({ action: "definition", file: "a.ts", symbol: "pong" });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toBe(
      '`symbol` "pong" occurs 2 times in this file\'s code, so `line` is needed; it occurs on:\n  2  return n > 0 ? pong(n - 1) : 0;\n  4  export function pong(n: number): number {',
    );
    const wide = textOf(await lsp({ action: "references", file: "a.ts", symbol: "leaf" }));
    expect(wide).toMatch(
      /^`symbol` "leaf" occurs 61 times .*\n {2}8 {2}export function leaf\(\): number \{\n/,
    );
    expect(wide).toMatch(/\n {2}\+41 more lines$/);
  });

  it("bad arguments are refused by name before any server is asked", async () => {
    const wrong = await lsp({
      action: "call_hierarchy",
      file: "a.ts",
      line: 1,
      symbol: "ping",
      direction: "subtypes",
    });
    expect(textOf(wrong)).toBe(
      '`direction` "subtypes" is not one of call_hierarchy\'s: "incoming" or "outgoing".',
    );
    const stray = await lsp({ action: "definition", file: "a.ts", line: 1, symbol: "ping", depth: 2 });
    expect(textOf(stray)).toBe(
      "`depth` is for call_hierarchy and type_hierarchy only; definition does not take it.",
    );
    const deep = await lsp({ action: "call_hierarchy", file: "a.ts", line: 1, symbol: "ping", depth: 4 });
    expect(deep.isError).toBe(true);
    expect(textOf(deep)).toMatch(/depth/);
    const missing = await lsp({ action: "type_hierarchy", file: "a.ts", line: 1 });
    expect(textOf(missing)).toBe(
      "type_hierarchy needs `file` and `symbol` (the name as written; with `line` when it occurs more than once in the file — a column is never guessed); missing: `symbol`.",
    );
  });
});
