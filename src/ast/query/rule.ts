/**
 * `rule`: ast-grep's rule object — atomic (pattern, kind, regex, nthChild, range), relational (inside, has, precedes,
 * follows, with stopBy and field), composite (all, any, not, matches) — plus `constraints` on metavariables and
 * `utils` for `matches`. The shape is checked here with errors that name the key's path (`rule.inside.stopBy`); each
 * pattern string inside goes up the same scaffold ladder as `pattern`, and each kind and regex is tried on ast-grep
 * itself, so a rule that would match nothing for a typo is refused, never searched.
 */
import { type NapiConfig, parse } from "@ast-grep/napi";
import type { Grammar } from "../../../grammars/index.js";
import { ToolError } from "../../errors.js";
import { isPlain, quotedValue } from "../../files/visible.js";
import { type CompiledPattern, compilePattern } from "./compile.js";
import { type LiteralWord, mergedWords } from "./words.js";

export type RuleObject = Record<string, unknown>;

export interface RuleArgs {
  readonly rule?: RuleObject | undefined;
  readonly constraints?: Record<string, unknown> | undefined;
  readonly utils?: Record<string, unknown> | undefined;
}

/** A rule ready for ast-grep, with what the answers and the prefilter need. */
export interface CompiledRule {
  readonly config: NapiConfig;
  /** Every pattern string of the rule as the ladder read it, with the key path it is at. */
  readonly patterns: readonly { readonly path: string; readonly compiled: CompiledPattern }[];
  readonly singles: readonly string[];
  readonly multiples: readonly string[];
  /** Words every matching file must contain: from the parts a match requires (never under not or any). */
  readonly literals: readonly LiteralWord[];
  /** The kind of node the rule matches, where one pattern or kind at its top says so. */
  readonly selector: string;
}

const ATOMIC = ["pattern", "kind", "regex", "nthChild", "range"] as const;
const RELATIONAL = ["inside", "has", "precedes", "follows"] as const;
const COMPOSITE = ["all", "any", "not", "matches"] as const;
const RULE_KEYS: readonly string[] = [...ATOMIC, ...RELATIONAL, ...COMPOSITE];
const STRICTNESS = ["cst", "smart", "ast", "relaxed", "signature"];

/** A key as the path of an error names it (a constraint's name may be as long as a pattern). */
const clippedKey = (key: string) => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

/** The shape of rule, constraints and utils, checked without a grammar (before anything runs or is asked). */
export function checkRuleShape(args: RuleArgs): void {
  checkSize(args);
  const names = new Set(Object.keys(args.utils ?? {}));
  if (args.rule !== undefined) checkRule(args.rule, "rule", names, false);
  for (const [name, rule] of Object.entries(args.utils ?? {}))
    checkRule(rule, `utils.${clippedKey(name)}`, names, false);
  for (const [name, rule] of Object.entries(args.constraints ?? {})) {
    if (!/^\$?[A-Z_][A-Z0-9_]*$/.test(name))
      refuse(
        `\`constraints\` key ${quotedValue(name)} is not a metavariable name: use the name a pattern binds, e.g. "A" for $A`,
      );
    checkRule(rule, `constraints.${clippedKey(name)}`, names, false);
  }
}

/**
 * How deep and how large a rule may be: every key is checked, compiled and tried, and each level is a recursion.
 * Far above published rules (the largest seen had ~1,400 parts and 9 levels), which a bound of 1,000 parts refused.
 */
const MAX_DEPTH = 64;
const MAX_PARTS = 20_000;
/**
 * The characters of all a rule's regexes together. ast-grep compiles a regex where the rule is checked — on the
 * host's thread — and the CLI has no bound but the regex engine's: an 8 MB one held the thread 1 s and left ~900 MB
 * behind, per call. 100,000 characters compile in ~20 ms; real rules' run to a few hundred.
 */
export const MAX_REGEX_CHARS = 100_000;

function checkSize(args: RuleArgs): void {
  let parts = 0;
  let deepest = 0;
  let regexChars = 0;
  const stack: { value: unknown; depth: number }[] = [
    { value: args.rule, depth: 1 },
    { value: args.constraints, depth: 1 },
    { value: args.utils, depth: 1 },
  ];
  // Counted to ten times the bound, so a refusal says by how much.
  while (stack.length && parts <= MAX_PARTS * 10) {
    const { value, depth } = stack.pop()!;
    if (!value || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth);
    for (const [key, child] of Object.entries(value)) {
      parts++;
      if (key === "regex" && typeof child === "string") regexChars += child.length;
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  if (regexChars > MAX_REGEX_CHARS)
    refuse(
      `\`rule\`'s regexes come to ${regexChars.toLocaleString("en-US")} characters or more, over the ${MAX_REGEX_CHARS.toLocaleString("en-US")} a rule may have (each is compiled where the rule is checked); match by \`kind\` or \`pattern\` and keep the regex to the varying part`,
    );
  if (deepest > MAX_DEPTH)
    refuse(
      `\`rule\` nests ${deepest} levels deep, over the ${MAX_DEPTH} a rule may have; write it flatter (\`all\` and \`any\` take lists)`,
    );
  if (parts > MAX_PARTS)
    refuse(
      `\`rule\` has ${parts > MAX_PARTS * 10 ? "more than " : ""}${Math.min(parts, MAX_PARTS * 10).toLocaleString("en-US")} parts, over the ${MAX_PARTS.toLocaleString("en-US")} a rule may have; narrow it, or search in several calls`,
    );
}

function checkRule(value: unknown, at: string, utils: ReadonlySet<string>, relation: boolean): void {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    refuse(
      `\`${at}\` must be a rule object, e.g. { "pattern": "await $X" } or { "kind": "call_expression" }`,
    );
  const rule = value as RuleObject;
  const keys = Object.keys(rule);
  const own = keys.filter((k) => !(relation && (k === "stopBy" || k === "field")));
  if (own.length === 0)
    refuse(`\`${at}\` is empty: a rule needs at least one of ${RULE_KEYS.map((k) => `\`${k}\``).join(", ")}`);
  for (const key of keys) {
    const path = `${at}.${key}`;
    if (relation && key === "stopBy") checkStopBy(rule[key], path, utils);
    else if (relation && key === "field") {
      if (typeof rule[key] !== "string" || rule[key] === "")
        refuse(`\`${path}\` must be a field name of the node, e.g. "body"`);
    } else if (!RULE_KEYS.includes(key)) refuse(unknownKey(key, at, relation));
    else checkValue(key, rule[key], path, utils);
  }
}

function checkValue(key: string, value: unknown, path: string, utils: ReadonlySet<string>): void {
  switch (key) {
    case "pattern":
      checkPattern(value, path);
      return;
    case "kind":
    case "regex":
      if (typeof value !== "string" || value === "")
        refuse(
          `\`${path}\` must be a non-empty string${key === "kind" ? ', a node kind such as "call_expression"' : " (a Rust regex)"}`,
        );
      return;
    case "nthChild":
      if (!(typeof value === "number" || typeof value === "string" || (value && typeof value === "object")))
        refuse(
          `\`${path}\` must be a position (3), a formula ("2n+1") or { "position": …, "reverse"?, "ofRule"? }`,
        );
      return;
    case "range":
      if (!value || typeof value !== "object")
        refuse(
          `\`${path}\` must be { "start": { "line", "column" }, "end": { "line", "column" } } (0-based)`,
        );
      return;
    case "all":
    case "any":
      if (!Array.isArray(value) || value.length === 0)
        refuse(`\`${path}\` must be a non-empty list of rules`);
      for (const [i, r] of value.entries()) checkRule(r, `${path}[${i}]`, utils, false);
      return;
    case "not":
      checkRule(value, path, utils, false);
      return;
    case "matches":
      if (typeof value !== "string" || !utils.has(value))
        refuse(
          `\`${path}\` names ${typeof value === "string" ? `${quotedValue(value)}, which is not` : "no rule: it must be"} a key of \`utils\` (${utils.size ? [...utils].map((u) => quotedValue(u, 64)).join(", ") : "none given"})`,
        );
      return;
    default:
      checkRule(value, path, utils, true);
  }
}

function checkPattern(value: unknown, path: string): void {
  if (typeof value === "string") {
    if (value.trim() === "") refuse(`\`${path}\` is empty; give a code fragment, e.g. "await $X"`);
    return;
  }
  const object = value as { context?: unknown; selector?: unknown; strictness?: unknown } | null;
  if (!object || typeof object !== "object" || typeof object.context !== "string")
    refuse(
      `\`${path}\` must be a code fragment, or { "context": code, "selector"?: kind, "strictness"?: … }`,
    );
  for (const key of Object.keys(object))
    if (!["context", "selector", "strictness"].includes(key))
      refuse(
        `\`${path}.${key}\` is not a pattern key; a pattern object has context, selector and strictness`,
      );
  if (object.strictness !== undefined && !STRICTNESS.includes(String(object.strictness)))
    refuse(`\`${path}.strictness\` must be one of ${STRICTNESS.join(", ")}`);
}

function checkStopBy(value: unknown, path: string, utils: ReadonlySet<string>): void {
  if (value === "neighbor" || value === "end") return;
  if (typeof value === "string")
    refuse(`\`${path}\` must be "neighbor" (the default), "end", or a rule where the search stops`);
  checkRule(value, path, utils, false);
}

function unknownKey(key: string, at: string, relation: boolean): string {
  const known = relation ? [...RULE_KEYS, "stopBy", "field"] : RULE_KEYS;
  const near = known.find((k) => distance(k.toLowerCase(), key.toLowerCase()) <= 2);
  const misplaced =
    !relation && (key === "stopBy" || key === "field")
      ? ` (\`${key}\` belongs inside inside, has, precedes or follows)`
      : "";
  return `\`${at}.${key}\` is not a rule key${near && !misplaced ? ` (did you mean \`${near}\`?)` : misplaced}; a rule's keys are ${known.join(", ")}`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length]!;
}

function refuse(message: string): never {
  throw new ToolError(`${message}. Nothing was searched.`);
}

/** The rule for ast-grep in `grammar`: patterns through the ladder, kinds and regexes tried. */
export function compileRule(grammar: Grammar, args: RuleArgs & { readonly rule: RuleObject }): CompiledRule {
  checkRuleShape(args);
  const patterns: { path: string; compiled: CompiledPattern }[] = [];
  const optional = new Set<string>();
  const compile = (rule: RuleObject, at: string, required: boolean): RuleObject =>
    Object.fromEntries(
      Object.entries(rule).map(([key, value]) => [key, compileValue(key, value, `${at}.${key}`, required)]),
    );
  const compileValue = (key: string, value: unknown, path: string, required: boolean): unknown => {
    if (key === "pattern" && typeof value === "string") {
      const compiled = inPath(path, () => compilePattern(grammar, value));
      patterns.push({ path, compiled });
      if (!required) optional.add(path);
      return compiled.rule.rule.pattern;
    }
    if (key === "kind" || key === "regex") tryOnAstGrep(grammar, { [key]: value }, path);
    if (key === "all" || key === "any")
      return (value as RuleObject[]).map((r, i) => compile(r, `${path}[${i}]`, required && key === "all"));
    if (key === "not" || key === "stopBy")
      return typeof value === "object" ? compile(value as RuleObject, path, false) : value;
    if ((RELATIONAL as readonly string[]).includes(key)) return compile(value as RuleObject, path, required);
    return value;
  };
  const rule = compile(args.rule, "rule", true);
  const constraints = Object.fromEntries(
    Object.entries(args.constraints ?? {}).map(([name, r]) => [
      name.replace(/^\$/, ""),
      compile(r as RuleObject, `constraints.${clippedKey(name)}`, false),
    ]),
  );
  const utils = Object.fromEntries(
    Object.entries(args.utils ?? {}).map(([name, r]) => [
      name,
      compile(r as RuleObject, `utils.${clippedKey(name)}`, false),
    ]),
  );
  const singles = new Set(patterns.flatMap((p) => p.compiled.singles));
  const multiples = new Set(patterns.flatMap((p) => p.compiled.multiples));
  for (const name of Object.keys(constraints))
    if (!singles.has(name) && !multiples.has(name))
      refuse(
        `\`constraints\` names ${isPlain(name) ? `$${name}` : quotedValue(`$${name}`)}, which no pattern of the rule binds (they bind ${[...singles, ...multiples].map((n) => `$${n}`).join(", ") || "nothing"})`,
      );
  const config: NapiConfig = {
    rule,
    ...(Object.keys(constraints).length ? { constraints } : {}),
    ...(Object.keys(utils).length ? { utils } : {}),
  };
  tryOnAstGrep(grammar, config, "rule");
  const top = patterns.find((p) => p.path === "rule.pattern");
  return {
    config,
    patterns,
    singles: [...singles],
    multiples: [...multiples],
    literals: mergedWords(patterns.filter((p) => !optional.has(p.path)).map((p) => p.compiled.literals)),
    selector: top?.compiled.selector ?? (typeof args.rule.kind === "string" ? args.rule.kind : "rule"),
  };
}

function inPath<T>(path: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(`In \`${path}\`: ${error.message}`);
    throw error;
  }
}

/** ast-grep's own verdict on a kind, a regex or the whole rule, on an empty tree: its message, with the key's path. */
function tryOnAstGrep(grammar: Grammar, rule: RuleObject | NapiConfig, path: string): void {
  const config = (path === "rule" ? rule : { rule }) as NapiConfig;
  try {
    parse(grammar.lang, "").root().findAll(config);
  } catch (error) {
    const said = (error as Error).message
      .split("\n")
      .map((l) => l.replace(/^\s*\|->/, "").trim())
      .filter(
        (l) =>
          l &&
          !/is not configured correctly|^Rule contains|^Invalid Kind$|^Parsing text matcher fails/.test(l),
      );
    refuse(`\`${path}\` is refused by ast-grep for ${grammar.id}: ${said.join(" ").replace(/\.$/, "")}`);
  }
}
