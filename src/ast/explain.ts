/**
 * ast_grep `explain`: how a pattern (or any code fragment) parses in a grammar — which rung of the ladder read it,
 * why the rungs before it did not, and the tree of node kinds it became — so that a model can write the pattern, or
 * the rule's `kind`s, that match. Nothing is searched.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Grammar } from "../../grammars/index.js";
import { ToolError } from "../errors.js";
import { article, climb } from "./compile.js";
import type { QueryArgs } from "./query.js";

/** Lines of one pattern's tree, at most. */
const MAX_TREE_LINES = 40;

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
  if (!chosen)
    return {
      text: [
        `\`${trimmed}\`${where} does not parse as ${grammar.id} in any context tried:`,
        ...problems.map((p) => `  ${p}`),
      ].join("\n"),
      rung: "none",
      selector: "",
    };
  const { compiled, node, context } = chosen;
  const tree = treeLines(node, context);
  const shown = tree.slice(0, MAX_TREE_LINES);
  return {
    text: [
      `\`${trimmed}\`${where} reads in ${grammar.id} as ${article(compiled.rung)}; it matches nodes of kind ${compiled.selector}:`,
      ...shown,
      ...(tree.length > shown.length ? [`  … ${tree.length - shown.length} more lines of the tree`] : []),
      ...(problems.length ? ["Contexts tried before it:", ...problems.map((p) => `  ${p}`)] : []),
    ].join("\n"),
    rung: compiled.rung,
    selector: compiled.selector,
  };
}

/** The named nodes under `node`, two spaces a level; a leaf with its text as written (metavariables with `$`). */
function treeLines(node: SgNode, context: string): string[] {
  const lines: string[] = [];
  const visit = (n: SgNode, depth: number) => {
    const named = n.children().filter((c) => c.isNamed());
    const range = n.range();
    const text = context.slice(range.start.index, range.end.index);
    const leaf = named.length === 0 ? `  ${oneLine(text)}` : "";
    lines.push(`${"  ".repeat(depth + 1)}${n.kind()}${leaf}`);
    for (const child of named) visit(child, depth + 1);
  };
  visit(node, 0);
  return lines;
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
