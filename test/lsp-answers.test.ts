/**
 * What the model reads, on pyright and tsgo over the generated project (test/answer-project.ts): no echo of the
 * call, one row per line, snippets clipped around the name and completed over a signature's lines, hover markup
 * made plain, a cut hover saying how much, and a name only in a comment refused with the lines where it is code.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clipAround, SNIPPET_WIDTH, snippetOf } from "../src/files/snippet.js";
import { createRun, type Run } from "../src/index.js";
import { plainMarkup } from "../src/lsp/actions/markup.js";
import type { RunLink } from "../src/run-link.js";
import { answerProject } from "./answer-project.js";
import { call, textOf } from "./helpers.js";

describe("snippets and markup, as text", () => {
  it("a long line is clipped around the column, with … on each side cut", () => {
    const line = `${"a".repeat(150)} target(x) ${"b".repeat(150)}`;
    const clipped = clipAround(line, 151);
    expect(clipped).toContain("target(x)");
    expect(clipped.startsWith("…") && clipped.endsWith("…")).toBe(true);
    expect(clipped.length).toBe(SNIPPET_WIDTH + 2);
    expect(clipAround("short", 3)).toBe("short");
    expect(clipAround("c".repeat(300), 0)).toBe(`${"c".repeat(SNIPPET_WIDTH)}…`);
  });

  it("a signature over several lines is completed where its bracket closes, and no further", () => {
    const lines = [
      "def merge(",
      "    jar: Jar,",
      "    cookies: dict[str, str],",
      ") -> Jar:",
      "    return jar",
    ];
    expect(snippetOf(lines, 0)).toBe("def merge(jar: Jar, cookies: dict[str, str],) -> Jar:");
    expect(snippetOf(["f(a, ')')", "next"], 0)).toBe("f(a, ')')");
    expect(snippetOf(["  }) {", "x"], 0)).toBe("}) {");
    // A line already past the width is clipped, not completed (a minified line is not scanned for brackets).
    expect(snippetOf([`${"x".repeat(150)}(`, "a)"], 0)).toBe(`${"x".repeat(SNIPPET_WIDTH)}…`);
    // An unclosed bracket stops after six lines.
    expect(snippetOf(["call(", ...Array.from({ length: 10 }, (_, i) => `a${i},`)], 0)).toBe(
      "call(a0, a1, a2, a3, a4, a5,",
    );
  });

  it("entities and markdown escapes are decoded in prose, never in code", () => {
    const md = [
      "```python",
      "def f(a\\_b): return '&nbsp;'",
      "```",
      "&nbsp;&nbsp;&nbsp;&nbsp;x = allow\\_redirects &lt;tag&gt; &#39;q&#39;  ",
      "keep `a\\_b` and &unknown;",
    ].join("\n");
    expect(plainMarkup(md)).toBe(
      [
        "```python",
        "def f(a\\_b): return '&nbsp;'",
        "```",
        "    x = allow_redirects <tag> 'q'",
        "keep `a\\_b` and &unknown;",
      ].join("\n"),
    );
  });
});

describe("answers from pyright and tsgo", () => {
  let run: Run;
  let client: RunLink;
  let dir: string;
  const lsp = async (args: Record<string, unknown>) => {
    const result = await call(client, "lsp", args);
    return { text: textOf(result), error: result.isError === true, structured: result.structuredContent };
  };

  beforeAll(async () => {
    dir = await answerProject();
    run = await createRun({ workdir: dir, approver: "always" });
    client = await run.link({ surface: "plan" });
  });
  afterAll(async () => {
    await run?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const CASES = [
    {
      server: "pyright",
      use: { file: "py/shop/use0.py", line: 5, symbol: "merge_cookies" },
      decl: { file: "py/shop/cookies.py", line: 1, symbol: "Jar" },
      comment: { file: "py/shop/cookies.py", line: 72, symbol: "merge_cookies" },
      commentError:
        '`symbol` "merge_cookies" is only inside a string or comment on line 72, which reads: `# see merge_cookies for how jars combine`. In code it occurs on line 8; use that as `line`.',
      definition: "py/shop/cookies.py:8  def merge_cookies(cookiejar: Jar, cookies: dict[str, str],) -> Jar:",
      sameLine: "  6 (columns 26, 33)  first, second = pair(Jar(), Jar())",
      longLine: /^ {2}7 {2}…x{20,}": 1, "value": merge_cookies\(first, \{"k": "v"\}\), "n": long_doc\(\)\}$/m,
    },
    {
      server: "tsgo",
      use: { file: "ts/src/use0.ts", line: 4, symbol: "mergeCookies" },
      decl: { file: "ts/src/cookies.ts", line: 1, symbol: "Jar" },
      comment: { file: "ts/src/cookies.ts", line: 19, symbol: "mergeCookies" },
      commentError:
        '`symbol` "mergeCookies" is only inside a string or comment on line 19, which reads: `// pair: see mergeCookies for how jars combine`. In code it occurs on line 11; use that as `line`.',
      definition:
        "ts/src/cookies.ts:11  export function mergeCookies(cookiejar: Jar, cookies: Record<string, string>,): Jar {",
      sameLine: "  5 (columns 28, 39)  const [first] = pair(new Jar(), new Jar());",
      longLine: /^ {2}6 {2}…x{20,}": 1, value: mergeCookies\(first, \{ k: "v" \}\) \};$/m,
    },
  ];

  for (const c of CASES) {
    it(`${c.server}: a definition is its location and the whole signature, with no echo of the call`, async () => {
      const { text, structured } = await lsp({ action: "definition", ...c.use });
      expect(text).toBe(c.definition);
      // The harness still has the target and the range.
      expect(structured).toMatchObject({
        target: { path: c.use.file, line: c.use.line, identifier: c.use.symbol },
        locations: [{ end: { line: expect.any(Number), column: expect.any(Number) } }],
      });
    });

    it(`${c.server}: references on one line are one row with their columns; a long line is clipped around the name`, async () => {
      const jar = await lsp({ action: "references", ...c.decl });
      expect(jar.text).toMatch(/^\d+ references in 7 files:\n/);
      expect(jar.text.split("\n")).toContain(c.sameLine);
      // No line of a file is listed twice.
      const rows: string[] = [];
      let file = "";
      for (const l of jar.text.split("\n").slice(1)) {
        if (l.startsWith("  ")) rows.push(`${file}:${l.trim().split(" ")[0]}`);
        else file = l;
      }
      expect(new Set(rows).size).toBe(rows.length);
      expect(rows.length).toBeGreaterThan(20);
      const fn = await lsp({ action: "references", ...c.use });
      expect(fn.text).toMatch(c.longLine);
      for (const row of fn.text.split("\n")) expect(row.length).toBeLessThanOrEqual(SNIPPET_WIDTH + 12);
    });

    it(`${c.server}: a name only in a comment is an error naming the line where it is code`, async () => {
      const { text, error } = await lsp({ action: "definition", ...c.comment });
      expect(error).toBe(true);
      expect(text).toBe(c.commentError);
    });
  }

  it("pyright: a hover is plain text (no &nbsp; or \\_), its code block as the server wrote it", async () => {
    const { text } = await lsp({
      action: "hover",
      file: "py/shop/use0.py",
      line: 5,
      symbol: "merge_cookies",
    });
    expect(text).toMatch(/^```python\n\(function\) def merge_cookies\(\n {4}cookiejar: Jar,/);
    expect(text).toContain(":param cookiejar: the jar to merge into, with allow_redirects kept.\n");
    expect(text).toContain(":param cookies: the cookies_to_add, by name.\n");
    // pyright sends the docstring's indentation as &nbsp;: spaces again.
    expect(text).toContain('\nExample:\n    jar = merge_cookies(Jar(), {"a": "b"})');
    expect(text).not.toMatch(/&nbsp;|\\_| {2}$/m);
  });

  it("pyright: a hover cut at its budget says how much was left out", async () => {
    const { text, structured } = await lsp({
      action: "hover",
      file: "py/shop/use0.py",
      line: 7,
      symbol: "long_doc",
    });
    const shown = text.split("\n");
    expect(shown.at(-1)).toMatch(/^… \(trimmed: 1[0-9] more lines, [0-9]{3} more characters not shown\)$/);
    expect(shown.at(-2)).toMatch(/^Line 2[0-9] of a long story/);
    expect((structured as { hover: string }).hover).toBe(text);
  });

  it("tsgo: several occurrences on the line are said, with how to take another", async () => {
    const { text } = await lsp({ action: "definition", file: "ts/src/use0.ts", line: 5, symbol: "Jar" });
    expect(text).toBe(
      "(`Jar` occurs 2 times on line 5: the first (column 28) was taken; for another, give `symbol` with what precedes it)\nts/src/cookies.ts:1  export class Jar {",
    );
  });
});
