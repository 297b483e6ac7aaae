import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { SnippetReader } from "../src/lsp/actions/format.js";
import { analyse, fromEncoding, locateSymbol, toEncoding } from "../src/lsp/actions/positions.js";
import { groupedDiagnosticLines, uriPath } from "../src/lsp/diagnostics/diagnostics.js";
import { DiagnosticsJournal } from "../src/lsp/diagnostics/journal.js";

describe("locateSymbol: line + symbol, never a column", () => {
  it("finds a whole identifier in code, in UTF-16 code units past non-ASCII text", () => {
    const text = 'const naïve = "😀 load"; cfg.load(naïve);\n';
    const hit = locateSymbol(text, 1, "load", "c");
    // "😀" is two UTF-16 units; the match inside the string is skipped for the call.
    expect(hit).toEqual({
      line: 0,
      character: text.indexOf("cfg.load") + 4,
      identifier: "load",
      occurrence: 1,
      of: 1,
    });
  });

  it("a module path or an __all__ entry is a position servers navigate; another string, a comment, are not", () => {
    const go = 'package a\n\nimport "fmt"\n\nimport (\n\t"strings"\n\tio "io"\n)\n\nvar s = "fmt"\n';
    expect(locateSymbol(go, 3, "fmt", "c")).toMatchObject({ line: 2, character: 8, identifier: "fmt" });
    expect(locateSymbol(go, 6, "strings", "c")).toMatchObject({
      line: 5,
      character: 2,
      identifier: "strings",
    });
    expect(locateSymbol(go, 7, "io", "c")).toMatchObject({ line: 6, character: 1 });
    expect(() => locateSymbol(go, 10, "fmt", "c")).toThrow(/only inside a string or comment on line 10/);
    const ts =
      'import { Stock } from "./stock.js";\nconst m = await import("./lazy.js");\nconst r = require("x");\n// from "./stock.js"\n';
    expect(locateSymbol(ts, 1, "./stock.js", "c").note).toBe(
      '"./stock.js" is inside a string the server navigates (a module path or an `__all__` entry)',
    );
    expect(locateSymbol(ts, 2, "lazy", "c")).toMatchObject({ line: 1, identifier: "lazy" });
    expect(locateSymbol(ts, 3, "x", "c")).toMatchObject({ line: 2 });
    expect(() => locateSymbol(ts, 4, "stock", "c")).toThrow(/only inside a string or comment on line 4/);
    const py = '__all__ = [\n    "Item",\n    "Stock",\n]\nNAME = "Item"\n__all__ += ["load"]  # "Item"\n';
    expect(locateSymbol(py, 2, "Item", "python")).toMatchObject({ line: 1, character: 5 });
    expect(locateSymbol(py, 6, "load", "python")).toMatchObject({ line: 5 });
    expect(() => locateSymbol(py, 5, "Item", "python")).toThrow(/only inside a string or comment on line 5/);
    expect(() => locateSymbol(py, 6, "Item", "python")).toThrow(/only inside a string or comment on line 6/);
  });

  it("a text is analysed again when it differs, even at the same length; an equal one reuses the analysis", () => {
    const code = "f(/*x*/ load)\n";
    const comment = "f(/*x** load)\n"; // same length: the comment never closes
    expect(locateSymbol(code, 1, "load", "c").note).toBeUndefined();
    expect(() => locateSymbol(comment, 1, "load", "c")).toThrow(/only inside a string or comment on line 1/);
    expect(analyse(`${code}`, "c")).toBe(analyse(code.slice(0), "c"));
  });

  it("without a line: the one line where the name occurs in code, said in the note", () => {
    const py = '"""load the shop"""\n# load it\nx = 1\ndef load(path):\n    return path\nloader = 2\n';
    expect(locateSymbol(py, undefined, "load", "python")).toEqual({
      line: 3,
      character: 4,
      identifier: "load",
      occurrence: 1,
      of: 1,
      note: 'no `line` given: line 4 is the one line where "load" occurs in code',
    });
  });

  it("without a line, a name that occurs twice (or twice on one line) is an error listing where, never a guess", () => {
    const py = "def load(path):\n    return path\n\nx = load(1) + load(2)\n";
    expect(() => locateSymbol(py, undefined, "load", "python")).toThrow(
      '`symbol` "load" occurs 3 times in this file\'s code, so `line` is needed; it occurs on:\n  1  def load(path):\n  4 (2 times)  x = load(1) + load(2)',
    );
    expect(() => locateSymbol('s = "load"  # load\nloader = 1\n', undefined, "load", "python")).toThrow(
      '`symbol` "load" does not occur as a name in this file\'s code (only inside strings, comments or longer names), so there is no line to take; check the name, or give `line`.',
    );
    const many = Array.from({ length: 30 }, (_, i) => `f${i} = load`).join("\n");
    const listed = () => locateSymbol(many, undefined, "load", "python");
    expect(listed).toThrow(
      /occurs 30 times .*\n {2}1 {2}f0 = load\n[\s\S]*\n {2}20 {2}f19 = load\n {2}\+10 more lines$/,
    );
  });

  it("a dotted symbol targets its last name", () => {
    const hit = locateSymbol("x = cfg.load(path)\n", 1, "cfg.load", "python");
    expect(hit.character).toBe(8);
    expect(hit.identifier).toBe("load");
  });

  it("prefers code over strings and comments, and whole identifiers over parts", () => {
    const py = 'print("add")  # add later\nadder = add(1)\n';
    expect(locateSymbol(py, 2, "add", "python")).toMatchObject({ character: 8, identifier: "add", of: 1 });
    const c = "/* count */ int counter = count; // count\n";
    expect(locateSymbol(c, 1, "count", "c")).toMatchObject({ character: 26, of: 1 });
  });

  it("a name only inside a string or comment (begun on an earlier line too) is an error naming where it is code", () => {
    const py = 'doc = """\nvalue is here\n"""\nvalue = 1\n';
    expect(() => locateSymbol(py, 2, "value", "python")).toThrow(
      '`symbol` "value" is only inside a string or comment on line 2, which reads: `value is here`. In code it occurs on line 4; use that as `line`.',
    );
    const ts = "/*\n  render()\n*/\nrender();\nrender();\n";
    expect(() => locateSymbol(ts, 2, "render", "c")).toThrow(
      "In code it occurs on lines 4, 5; use one of those as `line`.",
    );
    expect(() => locateSymbol("# see load\nx = 1\n", 1, "load", "python")).toThrow(
      "on line 1, which reads: `# see load`. It does not occur in this file's code.",
    );
  });

  it("several matches: the first, and says how many there were", () => {
    expect(locateSymbol("a = f(a, a)\n", 1, "a", "python")).toMatchObject({
      character: 0,
      occurrence: 1,
      of: 3,
    });
  });

  it("a part of an identifier points at the whole identifier and says so", () => {
    expect(locateSymbol("total_count = 1\n", 1, "count", "python")).toMatchObject({
      character: 0,
      identifier: "total_count",
      note: '"count" is part of the identifier "total_count"',
    });
  });

  it("not on that line: quotes the line and names the nearest lines where it occurs", () => {
    const text = "def load():\n    pass\n\nx = 1\nload()\nload()\n";
    expect(() => locateSymbol(text, 4, "load", "python")).toThrow(
      '`symbol` "load" is not on line 4, which reads: `x = 1`. It occurs on lines 1, 5, 6; use one of those as `line`.',
    );
    expect(() => locateSymbol(text, 2, "nope", "python")).toThrow(
      '`symbol` "nope" is not on line 2, which reads: `pass`. It does not occur as an identifier anywhere in this file.',
    );
    expect(() => locateSymbol(text, 9, "load", "python")).toThrow(
      "`line` 9 is past the end of the file (7 lines).",
    );
    // A docstring stays readable in a code span; a line with a backtick of its own goes in quotes.
    expect(() => locateSymbol('"""Stock levels."""\n', 1, "load", "python")).toThrow(
      'which reads: `"""Stock levels."""`.',
    );
    expect(() => locateSymbol("const s = `x`;\n", 1, "load", "c")).toThrow('which reads: "const s = `x`;".');
    expect(() => locateSymbol(text, 1, "()", "python")).toThrow(/has no identifier in it/);
  });

  it("converts UTF-16 columns to the server's encoding and back", () => {
    const line = "é😀x";
    expect(toEncoding(line, 3, "utf-16")).toBe(3);
    expect(toEncoding(line, 3, "utf-8")).toBe(6);
    expect(toEncoding(line, 3, "utf-32")).toBe(2);
    expect(fromEncoding(line, 6, "utf-8")).toBe(3);
    expect(fromEncoding(line, 2, "utf-32")).toBe(3);
  });
});

const diag = (message: string, line: number, severity: 1 | 2 = 1, code = "E1"): Diagnostic => ({
  range: { start: { line, character: 0 }, end: { line, character: 1 } },
  severity,
  code,
  message,
});

describe("the diagnostics journal (severity, code, message — no position)", () => {
  it("reports new keys and rises in count, not moves; drops vanished keys so they return as new", () => {
    const journal = new DiagnosticsJournal();
    expect(journal.record("a.ts", [diag("x undefined", 3)])).toEqual({
      added: [diag("x undefined", 3)],
      resolved: 0,
    });
    // The same error, four lines down: not new.
    expect(journal.record("a.ts", [diag("x undefined", 7)])).toEqual({ added: [], resolved: 0 });
    // A second one of the same key: its count rose, so one is reported.
    expect(journal.record("a.ts", [diag("x undefined", 7), diag("x undefined", 9)]).added).toHaveLength(1);
    // Both fixed: two resolved; then it comes back and is new again.
    expect(journal.record("a.ts", [])).toEqual({ added: [], resolved: 2 });
    expect(journal.record("a.ts", [diag("x undefined", 1)]).added).toHaveLength(1);
    // Another file is its own ledger; severity and code are part of the key.
    expect(journal.record("b.ts", [diag("x undefined", 1)]).added).toHaveLength(1);
    expect(journal.record("a.ts", [diag("x undefined", 1), diag("x undefined", 1, 2)]).added).toEqual([
      diag("x undefined", 1, 2),
    ]);
  });
});

describe("groupedDiagnosticLines: one finding at several lines of a file is one line", () => {
  const at = (line: number, message: string, severity: 1 | 2 = 2) => ({
    rel: "src/main.rs",
    d: {
      range: { start: { line: line - 1, character: 0 }, end: { line: line - 1, character: 1 } },
      severity,
      source: "rustc",
      code: "dead_code",
      message,
    },
  });
  it("groups by file, severity, source, code and message, in the order of first occurrence, within the limit", () => {
    const items = [
      at(39, "`main` function not found", 1),
      at(15, "methods `add` and `remove` are never used"),
      at(3, "struct `Item` is never constructed"),
      at(20, "methods `add` and `remove` are never used"),
      at(29, "methods `add` and `remove` are never used"),
    ];
    expect(groupedDiagnosticLines(items, 10)).toEqual({
      lines: [
        "src/main.rs:39 error: `main` function not found [rustc dead_code]",
        "src/main.rs:15, 20, 29 warning: methods `add` and `remove` are never used [rustc dead_code]",
        "src/main.rs:3 warning: struct `Item` is never constructed [rustc dead_code]",
      ],
      covered: 5,
    });
    expect(groupedDiagnosticLines(items, 2).covered).toBe(4);
  });
});

describe("uriPath and SnippetReader.rel: the fast paths agree with the URL parser and path.relative", () => {
  it("on plain, encoded, dotted and outside paths", () => {
    for (const uri of [
      "file:///work/app/src/main.ts",
      "file:///work/app/src/na%C3%AFve%20name.ts",
      "file:///work/app/./src/../lib/a.ts",
      "file:///work/app/src/a.ts#L3",
    ])
      expect(uriPath(uri), uri).toBe(fileURLToPath(uri));
    const reader = new SnippetReader("/work/app");
    for (const file of [
      "/work/app/src/main.ts",
      "/work/app/.github/x.yml",
      "/work/app/src/../lib/a.ts",
      "/work/other/a.ts",
      "/work/application/a.ts",
    ])
      expect(reader.rel(file), file).toBe(
        ((rel) => (rel.startsWith("..") || path.isAbsolute(rel) ? file : rel))(
          path.relative("/work/app", file),
        ),
      );
  });
});

describe("SnippetReader.knows: the target's file is quoted from the text the server was given", () => {
  it("quotes the known lines without reading or resolving the file again", () => {
    const reader = new SnippetReader("/work/app", []);
    const file = "/work/app/src/gone.ts"; // not on disk: a read would say so
    expect(reader.line(file, 0)).toBe("(the file cannot be read now)");
    const known = new SnippetReader("/work/app", []);
    known.knows(file, ["const a = 1;", "export const b = a;"]);
    expect(known.shows(file)).toBe(true);
    expect(known.line(file, 1)).toBe("export const b = a;");
  });
});
