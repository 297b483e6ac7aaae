/**
 * ast_grep's `rule` against ast-grep's own CLI (@ast-grep/cli): the same rule as a YAML rule, on the same files,
 * must find the same matches — for every relational and composite operator, constraints and utils. Then the
 * refusals: a misspelled key, a kind the grammar lacks, a bad regex, an unbound constraint, each naming its path.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { RunLink } from "../src/run-link.js";
import { astGrepCli, call, suiteWorkdir, textOf, treeOf } from "./helpers.js";

const FILES = {
  "src/a.js": [
    "async function load(xs) {",
    "  for (const x of xs) {",
    "    await fetch(x);",
    "    console.log(x);",
    "  }",
    "  await flush();",
    "  try {",
    "    console.log('done');",
    "  } catch (e) {",
    "    console.log(e);",
    "    console.error(e);",
    "  }",
    "}",
    "function plain(a, b) {",
    "  const x = a + b;",
    "  console.log(x);",
    "  return x;",
    "}",
    "",
  ].join("\n"),
  "src/b.js": [
    "export async function each(items) {",
    "  while (items.length) await step(items.pop());",
    "  for (let i = 0; i < 3; i++) {",
    "    if (i) await pause(i);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "py/shop.py": [
    "class Shop:",
    "    def add(self, item):",
    "        self.items.append(item)",
    "",
    "    def total(self):",
    "        return sum(i.price for i in self.items)",
    "",
    "def helper(x):",
    "    return x * 2",
    "",
    "async def fetch_all(urls):",
    "    for u in urls:",
    "        await get(u)",
    "",
  ].join("\n"),
};

interface RuleCase {
  name: string;
  language: string;
  cli: string;
  rule: Record<string, unknown>;
  constraints?: Record<string, unknown>;
  utils?: Record<string, unknown>;
}

const loops = { any: [{ kind: "for_in_statement" }, { kind: "for_statement" }, { kind: "while_statement" }] };

const CASES: RuleCase[] = [
  { name: "inside, stopBy end", rule: { pattern: "await $X", inside: { ...loops, stopBy: "end" } } },
  {
    name: "inside, stopBy neighbor (the parent only)",
    rule: { pattern: "await $X", inside: { kind: "expression_statement" } },
  },
  {
    name: "inside, stopBy a rule",
    rule: { pattern: "await $X", inside: { kind: "for_in_statement", stopBy: { kind: "if_statement" } } },
  },
  {
    name: "not inside",
    rule: { pattern: "console.log($A)", not: { inside: { kind: "catch_clause", stopBy: "end" } } },
  },
  {
    name: "has, stopBy end",
    rule: { kind: "function_declaration", has: { pattern: "await $X", stopBy: "end" } },
  },
  {
    name: "has with field",
    rule: { kind: "call_expression", has: { field: "function", regex: "^console\\.(log|error)$" } },
  },
  { name: "precedes", rule: { kind: "expression_statement", precedes: { kind: "try_statement" } } },
  {
    name: "follows, stopBy end",
    rule: { kind: "expression_statement", follows: { kind: "for_in_statement", stopBy: "end" } },
  },
  { name: "all", rule: { all: [{ kind: "call_expression" }, { regex: "log" }, { not: { regex: "done" } }] } },
  { name: "any", rule: { any: [{ pattern: "await $X" }, { pattern: "console.error($A)" }] } },
  { name: "not", rule: { kind: "identifier", not: { regex: "^(x|xs|e)$" } } },
  { name: "nthChild", rule: { kind: "identifier", nthChild: 1, inside: { kind: "formal_parameters" } } },
  {
    name: "matches with utils",
    rule: { matches: "logged", inside: { kind: "catch_clause", stopBy: "end" } },
    utils: { logged: { pattern: "console.$M($$$A)" } },
  },
  { name: "constraints", rule: { pattern: "console.$M($A)" }, constraints: { M: { regex: "^error$" } } },
  {
    name: "python: methods (inside a class), and functions that are not",
    language: "python",
    cli: "python",
    rule: { kind: "function_definition", not: { inside: { kind: "class_definition", stopBy: "end" } } },
  },
  {
    name: "python: await inside a for loop",
    language: "python",
    cli: "python",
    rule: { pattern: "await $X", inside: { kind: "for_statement", stopBy: "end" } },
  },
].map((c) => ({ language: "javascript", cli: "javascript", ...c }));

function cliMatches(dir: string, c: RuleCase): string[] {
  const yaml = [
    "id: case",
    `language: ${c.cli}`,
    `rule: ${JSON.stringify(c.rule)}`,
    ...(c.constraints ? [`constraints: ${JSON.stringify(c.constraints)}`] : []),
    ...(c.utils ? [`utils: ${JSON.stringify(c.utils)}`] : []),
  ].join("\n");
  return astGrepCli(dir, ["scan", "--inline-rules", yaml, "."])
    .map((m) => `${m.file}:${m.range.start.line + 1}:${m.range.start.column + 1}-${m.range.end.line + 1}`)
    .sort();
}

/** A run over FILES for one describe block, with a read-only link. */
function readonlySuite(): { client: () => RunLink; dir: () => string } {
  let run: Run;
  let client: RunLink;
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    run = await createRun({ workdir: dir, approver: "always", kernels: false });
    client = await run.link({ surface: "readonly" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });
  return { client: () => client, dir: () => dir };
}

describe("ast_grep with a rule: the same matches as ast-grep's CLI", () => {
  const suite = readonlySuite();

  for (const c of CASES) {
    it(c.name, async () => {
      const result = await call(suite.client(), "ast_grep", {
        rule: c.rule,
        ...(c.constraints ? { constraints: c.constraints } : {}),
        ...(c.utils ? { utils: c.utils } : {}),
        language: c.language,
        max_results: 1000,
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      const ours = (
        result.structuredContent as {
          matches: { path: string; line: number; column: number; end_line: number }[];
        }
      ).matches
        .map((m) => `${m.path}:${m.line}:${m.column}-${m.end_line}`)
        .sort();
      const theirs = cliMatches(suite.dir(), c);
      expect(theirs.length).toBeGreaterThan(0);
      expect(ours).toEqual(theirs);
    });
  }
});

describe("ast_grep and ast_edit: a rule that cannot be right is refused, naming the key", () => {
  let run: Run;
  let client: RunLink;
  let dir: string;
  let remove: () => Promise<void>;
  let asked = 0;
  beforeAll(async () => {
    ({ dir, remove } = await suiteWorkdir(FILES));
    run = await createRun({
      workdir: dir,
      kernels: false,
      approver: async () => {
        asked++;
        return { allow: true };
      },
    });
    client = await run.link({ surface: "full" });
  });
  afterAll(async () => {
    await run?.dispose();
    await remove?.();
  });
  const grep = (args: Record<string, unknown>) =>
    call(client, "ast_grep", { language: "javascript", ...args }).then(textOf);

  it("each refusal names the key's path and what it takes", async () => {
    expect(await grep({ rule: { pattern: "await $X", insde: { kind: "for_statement" } } })).toBe(
      "`rule.insde` is not a rule key (did you mean `inside`?); a rule's keys are pattern, kind, regex, nthChild, range, inside, has, precedes, follows, all, any, not, matches. Nothing was searched.",
    );
    expect(await grep({ rule: { pattern: "await $X", stopBy: "end" } })).toMatch(
      /^`rule\.stopBy` is not a rule key \(`stopBy` belongs inside inside, has, precedes or follows\)/,
    );
    expect(
      await grep({ rule: { pattern: "await $X", inside: { kind: "for_statment", stopBy: "end" } } }),
    ).toBe(
      "`rule.inside.kind` is refused by ast-grep for javascript: Kind `for_statment` is invalid. Nothing was searched.",
    );
    expect(await grep({ rule: { kind: "identifier", regex: "(" } })).toMatch(
      /^`rule\.regex` is refused by ast-grep for javascript: regex parse error: .*unclosed group\. Nothing was searched\.$/,
    );
    expect(
      await grep({ rule: { pattern: "await $X", inside: { kind: "for_statement", stopBy: "forever" } } }),
    ).toBe(
      '`rule.inside.stopBy` must be "neighbor" (the default), "end", or a rule where the search stops. Nothing was searched.',
    );
    expect(await grep({ rule: { matches: "logged" } })).toBe(
      '`rule.matches` names "logged", which is not a key of `utils` (none given). Nothing was searched.',
    );
    expect(await grep({ rule: { all: [] } })).toBe(
      "`rule.all` must be a non-empty list of rules. Nothing was searched.",
    );
    expect(await grep({ pattern: "console.log($A)", constraints: { B: { regex: "x" } } })).toBe(
      "`constraints` names $B, which no pattern of the rule binds (they bind $A). Nothing was searched.",
    );
    expect(await grep({ rule: { pattern: "await (" } })).toMatch(
      /^In `rule\.pattern`: Unparseable pattern for javascript: `await \(` is not valid javascript in any context tried/,
    );
    expect(await grep({ pattern: "f($X)", rule: { kind: "identifier" } })).toMatch(
      /^Give `pattern` or `rule`, not both/,
    );
    expect(await grep({})).toMatch(/^Give `pattern` \(a code fragment/);
    let deep: Record<string, unknown> = { kind: "identifier" };
    for (let i = 0; i < 70; i++) deep = { not: deep };
    expect(await grep({ rule: deep })).toBe(
      "`rule` nests 71 levels deep, over the 64 a rule may have; write it flatter (`all` and `any` take lists). Nothing was searched.",
    );
    // A rule the size of published ones (1,000 parts was the bound, and a published C++ rule had more) runs.
    const published = { any: Array.from({ length: 1200 }, (_, i) => ({ regex: `^x${i}$` })) };
    expect(await grep({ rule: published })).toMatch(/^No matches in /);
    const wide = { any: Array.from({ length: 12_000 }, (_, i) => ({ regex: `^x${i}$` })) };
    expect(await grep({ rule: wide })).toBe(
      "`rule` has 24,001 parts, over the 20,000 a rule may have; narrow it, or search in several calls. Nothing was searched.",
    );
  });

  it("regexes are bounded by their characters together: an 8 MB one is refused at once, one of 100,000 runs", async () => {
    // Compiled where the rule is checked, on the host's thread: 8 MB took it 1 s and left ~900 MB behind, per call
    // (the bench row "8 MB regex rule" measures the thread).
    const huge = await grep({ rule: { kind: "identifier", regex: "a".repeat(8_000_000) } });
    expect(huge).toBe(
      "`rule`'s regexes come to 8,000,000 characters or more, over the 100,000 a rule may have (each is compiled where the rule is checked); match by `kind` or `pattern` and keep the regex to the varying part. Nothing was searched.",
    );
    const split = { any: Array.from({ length: 20 }, () => ({ regex: "b".repeat(6_000) })) };
    expect(await grep({ rule: split })).toMatch(/^`rule`'s regexes come to 120,000 characters or more/);
    expect(await grep({ rule: { kind: "identifier", regex: `^(${"z".repeat(99_990)}|x)$` } })).toMatch(
      /^\d+ match(es)? in 1 file/,
    );
  });

  it("ast_edit rewrites a rule's matches; a bad rule is refused before anyone is asked", async () => {
    const before = asked;
    const refused = await call(client, "ast_edit", {
      rule: { pattern: "console.log($A)", inisde: { kind: "catch_clause" } },
      rewrite: "logger.info($A)",
      language: "javascript",
      path: "src",
    });
    expect(textOf(refused)).toMatch(/^`rule\.inisde` is not a rule key \(did you mean `inside`\?\)/);
    expect(asked).toBe(before);
    const staged = await call(client, "ast_edit", {
      rule: { pattern: "console.log($A)", not: { inside: { kind: "catch_clause", stopBy: "end" } } },
      rewrite: "logger.info($A)",
      language: "javascript",
      path: "src",
    });
    expect(textOf(staged)).toMatch(/^\(proposed\) 3 replacements in 1 file/);
    const id = (staged.structuredContent as { edit_id: string }).edit_id;
    await call(client, "resolve", { edit_id: id, action: "accept" });
    const a = (await treeOf(dir))["src/a.js"]!;
    expect(a.match(/logger\.info/g)).toHaveLength(3);
    expect(a).toContain("  } catch (e) {\n    console.log(e);\n");
  });
});

describe("ast_grep explain: how a pattern parses, nothing searched", () => {
  const suite = readonlySuite();
  const explain = (args: Record<string, unknown>) =>
    call(suite.client(), "ast_grep", { explain: true, ...args });

  it("the context chosen and the tree of node kinds, metavariables as written", async () => {
    const result = await explain({ pattern: "await $X", language: "javascript" });
    expect(textOf(result)).toBe(
      [
        "`await $X` reads in javascript as a bare fragment; it matches nodes of kind await_expression:",
        "  await_expression",
        "    identifier  `$X`",
        "(Named nodes only. A metavariable stands where one node of any kind goes, $$$NAME for a list of them.)",
      ].join("\n"),
    );
    expect(result.structuredContent).toMatchObject({
      language: "javascript",
      rung: "bare",
      selector: "await_expression",
      total: 0,
      searched: 0,
    });
  });

  it("each pattern of a rule, by its key; one that does not parse says why in every context", async () => {
    const text = textOf(
      await explain({
        rule: {
          pattern: "console.log($A)",
          inside: { pattern: "try { $$$ } catch ($E) { $$$ }", stopBy: "end" },
        },
        path: "src/a.js",
      }),
    );
    expect(text).toMatch(
      /^`console\.log\(\$A\)` \(rule\.pattern\) reads in javascript as a bare fragment; it matches nodes of kind call_expression:\n {2}call_expression\n {4}member_expression\n/,
    );
    expect(text).toContain(
      "\n\n`try { $$$ } catch ($E) { $$$ }` (rule.inside.pattern) reads in javascript as a bare fragment; it matches nodes of kind try_statement:\n  try_statement\n",
    );
    expect(textOf(await explain({ pattern: "await (", language: "javascript" }))).toMatch(
      /^`await \(` does not parse as javascript in any context tried:\n {2}as a bare fragment: it breaks at character 1/,
    );
  });

  it("needs a grammar, and says so", async () => {
    const result = await explain({ pattern: "x" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "`explain` needs `language` (or `path` of a file, whose extension names it).",
    );
  });
});
