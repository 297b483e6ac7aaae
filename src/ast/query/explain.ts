/**
 * ast_grep `explain`: how a pattern (or any code fragment) parses in a grammar — which rung of the ladder read it,
 * why the rungs before it did not, and the tree of node kinds it became — so that a model can write the pattern, or
 * the rule's `kind`s, that match. Nothing is searched.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Grammar } from "../../../grammars/index.js";
import { ToolError } from "../../errors.js";
import { article, climb } from "./compile.js";
import type { QueryArgs } from "./query.js";

/** Lines of one pattern's tree, at most. */
const MAX_TREE_LINES = 40;
/** Characters of a pattern repeated in the answer. */
const ECHOED = 200;

export interface Explained {
  readonly text: string;
  readonly rung: string;
  readonly selector: string;
}

/** Every pattern of the query explained: `pattern`, or each pattern string inside `rule`. */
export function explain(grammar: Grammar, args: QueryArgs): Explained {
  const patterns =
    args.pattern !== undefined
      ? [{ path: "pattern", text: args.pattern }]
      : patternsOf(args.rule ?? {}, "rule");
  if (patterns.length === 0)
    throw new ToolError(
      "`explain` shows how a pattern parses, and this rule has none: put the code fragment in `pattern` (no search is made).",
    );
  const parts = patterns.map((p) => explainOne(grammar, p.path, p.text));
  const first = parts[0]!;
  const note = parts.some((p) => p.rung !== "none")
    ? "\n(Named nodes only. A metavariable stands where one node of any kind goes, $$$NAME for a list of them.)"
    : "";
  return { text: parts.map((p) => p.text).join("\n\n") + note, rung: first.rung, selector: first.selector };
}

function explainOne(grammar: Grammar, at: string, pattern: string): Explained {
  const trimmed = pattern.trim();
  if (trimmed === "") throw new ToolError(`\`${at}\` is empty; give a code fragment to explain.`);
  const { chosen, problems } = climb(grammar, trimmed);
  const where = at === "pattern" ? "" : ` (${at})`;
  // The model's own pattern, echoed: up to ECHOED characters (one of 10,000 came back whole).
  const shown =
    trimmed.length > ECHOED
      ? `${trimmed.slice(0, ECHOED)}…\` (${trimmed.length.toLocaleString("en-US")} characters)`
      : `${trimmed}\``;
  if (!chosen)
    return {
      text: [
        `\`${shown}${where} does not parse as ${grammar.id} in any context tried:`,
        ...problems.map((p) => `  ${p}`),
      ].join("\n"),
      rung: "none",
      selector: "",
    };
  const { compiled, node, context } = chosen;
  const tree = treeLines(node, context);
  return {
    text: [
      `\`${shown}${where} reads in ${grammar.id} as ${article(compiled.rung)}; it matches nodes of kind ${compiled.selector}:`,
      ...tree.lines,
      ...(tree.more ? [`  … ${tree.more} more lines of the tree`] : []),
      ...(problems.length ? ["Contexts tried before it:", ...problems.map((p) => `  ${p}`)] : []),
    ].join("\n"),
    rung: compiled.rung,
    selector: compiled.selector,
  };
}

/**
 * The named nodes under `node`, two spaces a level; a leaf with its text as written (metavariables with `$`). The
 * first MAX_TREE_LINES are written out, the rest only counted; walked without recursion (a pattern may nest
 * thousands of levels deep).
 */
function treeLines(node: SgNode, context: string): { lines: string[]; more: number } {
  const lines: string[] = [];
  let more = 0;
  const stack: { n: SgNode; depth: number }[] = [{ n: node, depth: 0 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { n, depth } = top;
    const named = n.children().filter((c) => c.isNamed());
    if (lines.length < MAX_TREE_LINES) {
      const range = n.range();
      const leaf =
        named.length === 0 ? `  ${oneLine(context.slice(range.start.index, range.end.index))}` : "";
      lines.push(`${"  ".repeat(depth + 1)}${n.kind()}${leaf}`);
    } else more++;
    for (let i = named.length - 1; i >= 0; i--) stack.push({ n: named[i]!, depth: depth + 1 });
  }
  return { lines, more };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return `\`${flat.length > 60 ? `${flat.slice(0, 60)}…` : flat}\``;
}

/** The pattern strings of a rule object, with their key paths. */
function patternsOf(value: unknown, at: string): { path: string; text: string }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => patternsOf(v, `${at}[${i}]`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) =>
    key === "pattern" && typeof v === "string"
      ? [{ path: `${at}.pattern`, text: v }]
      : patternsOf(v, `${at}.${key}`),
  );
}
