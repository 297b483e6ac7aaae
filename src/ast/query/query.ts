/** What ast_grep and ast_edit search for: a `pattern`, or a `rule` (with `constraints` and `utils`) — one of them. */
import type { Grammar } from "../../../grammars/index.js";
import { ToolError } from "../../errors.js";
import type { Matcher } from "../match.js";
import { article, type CompiledPattern, compilePattern } from "./compile.js";
import { checkRuleShape, compileRule, type RuleArgs, type RuleObject } from "./rule.js";

export interface QueryArgs extends RuleArgs {
  readonly pattern?: string | undefined;
}

export interface Query {
  readonly matcher: Matcher;
  /** The ladder's rung the pattern parsed in, or "rule". */
  readonly rung: string;
  readonly selector: string;
  /** How the query was read, for the answer: "the pattern parsed as an expression (call_expression)". */
  readonly how: string;
  /** A pattern that was a header without its body, completed: the body's metavariable. */
  readonly completed?: { readonly written: string; readonly body: string };
}

/** Which of pattern and rule is given, and the rule's shape: checked before anything runs or is asked. */
export function checkQueryArgs(args: QueryArgs): void {
  if (args.pattern === undefined && args.rule === undefined)
    throw new ToolError(
      'Give `pattern` (a code fragment, e.g. `dispose($X)`) or `rule` (an ast-grep rule object, e.g. { "pattern": "await $X", "inside": { "kind": "for_statement", "stopBy": "end" } }).',
    );
  if (args.pattern !== undefined && args.rule !== undefined)
    throw new ToolError(
      "Give `pattern` or `rule`, not both: put the pattern inside the rule (`rule.pattern`) to combine it with other conditions.",
    );
  if (args.utils !== undefined && args.rule === undefined)
    throw new ToolError("`utils` are rules that `rule` refers to with `matches`; they need `rule`.");
  checkRuleShape(args);
}

/** `body`: what a completed header's body binds (`_`: nothing; a name, for a rewrite to carry it over). */
export function compileQuery(grammar: Grammar, args: QueryArgs, body = "_"): Query {
  checkQueryArgs(args);
  if (args.pattern !== undefined && args.constraints === undefined) {
    const compiled = compilePattern(grammar, args.pattern, body);
    return {
      matcher: compiled,
      rung: compiled.rung,
      selector: compiled.selector,
      how: `the pattern parsed as ${describeRung(compiled)}`,
      ...(compiled.completed ? { completed: compiled.completed } : {}),
    };
  }
  // A pattern with constraints is the rule { pattern }: constraints need ast-grep's rule form.
  const rule: RuleObject = args.rule ?? { pattern: args.pattern };
  const compiled = compileRule(grammar, { ...args, rule });
  const read = compiled.patterns.map(
    (p) =>
      `${p.path} \`${p.compiled.completed?.written ?? p.compiled.pattern}\` as ${describeRung(p.compiled)}`,
  );
  return {
    matcher: {
      rule: compiled.config,
      singles: compiled.singles,
      multiples: compiled.multiples,
      literals: compiled.literals,
    },
    rung: "rule",
    selector: compiled.selector,
    how: read.length ? `the rule's patterns parsed as: ${read.join("; ")}` : "the rule has no pattern",
  };
}

export function describeRung(c: CompiledPattern): string {
  const read = c.completed
    ? `, read as \`${c.pattern.replace(/\n/g, " ⏎ ")}\` (its body left to match anything)`
    : "";
  return `${article(c.rung)} (${c.selector})${read}`;
}
