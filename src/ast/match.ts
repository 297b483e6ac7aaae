/** Matching one file and turning ast-grep's nodes into the matches the tools report, in a search process. */
import type { NapiConfig, SgNode } from "@ast-grep/napi";
import { isBytes, readRegularSync } from "../files/regular.js";
import { firstNonUtf8Line } from "../files/utf8.js";
import { shownPath } from "../files/visible.js";
import type { TreeCache } from "./processes/tree-cache.js";
import { holdsWord, type LiteralWord } from "./query/words.js";

export interface AstMatch {
  readonly path: string;
  /** 1-based lines, 1-based columns of the start and of the end (just past the match's last character). */
  readonly line: number;
  readonly endLine: number;
  readonly column: number;
  readonly endColumn: number;
  /** UTF-16 offsets into the file's text. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** $X → its text; $$$X → the source from its first to its last node. */
  readonly captures: Record<string, string>;
}

export interface MatchSpec {
  readonly singles: readonly string[];
  readonly multiples: readonly string[];
  readonly literals: readonly LiteralWord[];
}

/** What a search runs: ast-grep's rule, and the names and words of the match spec. */
export interface Matcher extends MatchSpec {
  readonly rule: NapiConfig;
}

export function toMatch(rel: string, text: string, node: SgNode, spec: MatchSpec): AstMatch {
  const range = node.range();
  const captures: Record<string, string> = {};
  for (const name of spec.singles) {
    const captured = node.getMatch(name);
    if (captured) captures[name] = captured.text();
  }
  for (const name of spec.multiples) {
    const nodes = node.getMultipleMatches(name);
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    captures[name] = first && last ? text.slice(first.range().start.index, last.range().end.index) : "";
  }
  return {
    path: rel,
    line: range.start.line + 1,
    endLine: range.end.line + 1,
    column: range.start.column + 1,
    endColumn: range.end.column + 1,
    start: range.start.index,
    end: range.end.index,
    text: node.text(),
    captures,
  };
}

/** A file lacking one of the pattern's words cannot match: it is never parsed (parsing is the whole cost). */
export function mayMatch(text: string, spec: MatchSpec): boolean {
  return spec.literals.every((word) => holdsWord(text, word));
}

export interface FileRef {
  readonly abs: string;
  readonly rel: string;
  /** Its size when the search began, where the caller has it (else it is looked up). */
  readonly size?: number;
}

export interface FileMatches {
  readonly file: FileRef;
  readonly text: string;
  /** The first `keep` matches (all, for a rewrite); `total` counts them all. */
  readonly matches: AstMatch[];
  readonly total: number;
  /** With `outermost`: the matches inside another match (left out of `matches` and `total`), the first few named. */
  readonly nested?: { readonly count: number; readonly named: string[] };
  /** With `outermost`: there are more outermost matches than the limit (`total` is the limit). */
  readonly more?: true;
  /** With `outermost`: the line where the file first is not UTF-8 (its rewrite is refused). */
  readonly nonUtf8?: number;
}

/**
 * What one file cost: nothing (lacking the pattern's words), nothing because it could not be read (gone, or no
 * longer a regular file: a search that did not look at it is not complete), a reused tree, or a parse.
 */
export type FileCost = "skipped" | "unreadable" | "reused" | "parsed";

export interface MatchOptions {
  /** Matches to turn into answers; the rest are only counted. */
  readonly keep?: number;
  /**
   * Keep only the outermost of nested matches (a rewrite replaces the outer one), at most this many; the nested are
   * counted.
   */
  readonly outermost?: number;
}

/** Nested matches named in a rewrite's answer; the rest are counted. */
const NESTED_NAMED = 20;

/**
 * Reads, prefilters and matches one file; `search` names the search, for the tree cache's eviction. `held`: whether
 * the cache holds the file's tree afterwards (absent when the file was skipped: what it held is unchanged).
 */
export function matchFile(
  file: FileRef,
  lang: string,
  rule: NapiConfig,
  spec: MatchSpec,
  trees: TreeCache,
  search: number,
  options: MatchOptions = {},
): { cost: FileCost; held?: boolean; found?: FileMatches } {
  let bytes: Buffer | { kind: string } | undefined;
  try {
    bytes = readRegularSync(file.abs);
  } catch {
    bytes = undefined;
  }
  if (!bytes || !isBytes(bytes)) {
    trees.forget(lang, file.abs);
    return { cost: "unreadable" };
  }
  const text = bytes.toString("utf8");
  if (!mayMatch(text, spec)) return { cost: "skipped" };
  const { root, reused, held } = trees.tree(lang, file.abs, text, search);
  let nodes = root.root().findAll(rule);
  const cost = reused ? "reused" : "parsed";
  if (!nodes.length) return { cost, held };
  let nested: FileMatches["nested"];
  let more = false;
  let nonUtf8: number | undefined;
  if (options.outermost !== undefined) {
    ({ nodes, nested, more } = outermostOf(file.rel, nodes, options.outermost));
    nonUtf8 = firstNonUtf8Line(bytes);
  }
  const keep = options.keep ?? Number.POSITIVE_INFINITY;
  // Only the matches that can be shown become answers (a dense search of one file had 40,000, each several napi calls).
  const matches = nodes.slice(0, keep).map((n) => toMatch(file.rel, text, n, spec));
  const extra = {
    ...(nested ? { nested } : {}),
    ...(more ? { more } : {}),
    ...(nonUtf8 === undefined ? {} : { nonUtf8 }),
  };
  return { cost, held, found: { file, text, matches, total: nodes.length, ...extra } };
}

/**
 * The outermost of nested matches, the nested counted and the first few named. ast-grep finds in pre-order (a match
 * before the matches inside it, then by start). Past `limit` outermost matches it stops: a rewrite that large is
 * refused anyway, and each node's range is a native call (254,000 of them took 10 s).
 */
function outermostOf(
  rel: string,
  nodes: SgNode[],
  limit: number,
): { nodes: SgNode[]; nested: NonNullable<FileMatches["nested"]>; more: boolean } {
  const kept: SgNode[] = [];
  const named: string[] = [];
  let count = 0;
  let end = -1;
  for (const node of nodes) {
    const range = node.range();
    if (range.start.index < end) {
      count++;
      if (named.length < NESTED_NAMED) named.push(`${shownPath(rel)}:${range.start.line + 1}`);
      continue;
    }
    if (kept.length === limit) return { nodes: kept, nested: { count, named }, more: true };
    kept.push(node);
    end = range.end.index;
  }
  return { nodes: kept, nested: { count, named }, more: false };
}
