/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words cannot match, and
 * is never parsed — parsing is the whole cost), then parsing on the thread pool, several files at a time.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseAsync, type SgNode } from "@ast-grep/napi";
import type { Grammar } from "../../grammars/index.js";
import type { CompiledPattern } from "./compile.js";

export interface FileRef {
  readonly abs: string;
  readonly rel: string;
}

export interface AstMatch {
  readonly path: string;
  /** 1-based lines, 1-based column of the start. */
  readonly line: number;
  readonly endLine: number;
  readonly column: number;
  /** UTF-16 offsets into the file's text. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** $X → its text; $$$X → the source from its first to its last node. */
  readonly captures: Record<string, string>;
}

export interface FileMatches {
  readonly file: FileRef;
  readonly text: string;
  readonly matches: AstMatch[];
}

export interface SearchOutcome {
  readonly files: FileMatches[];
  readonly searched: number;
  readonly parsed: number;
}

export async function searchFiles(
  files: readonly FileRef[],
  grammar: Grammar,
  compiled: CompiledPattern,
  signal: AbortSignal,
): Promise<SearchOutcome> {
  const found: FileMatches[] = [];
  let parsed = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      signal.throwIfAborted();
      const file = files[next++]!;
      let text: string;
      try {
        text = readFileSync(file.abs, "utf8");
      } catch {
        continue;
      }
      if (!compiled.literals.every((word) => text.includes(word))) continue;
      parsed++;
      const root = await parseAsync(grammar.lang, text);
      const nodes = root.root().findAll(compiled.rule);
      if (nodes.length)
        found.push({ file, text, matches: nodes.map((node) => toMatch(file.rel, text, node, compiled)) });
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, availableParallelism() * 2) }, worker));
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { files: found, searched: files.length, parsed };
}

function toMatch(rel: string, text: string, node: SgNode, compiled: CompiledPattern): AstMatch {
  const range = node.range();
  const captures: Record<string, string> = {};
  for (const name of compiled.singles) {
    const captured = node.getMatch(name);
    if (captured) captures[name] = captured.text();
  }
  for (const name of compiled.multiples) {
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
    start: range.start.index,
    end: range.end.index,
    text: node.text(),
    captures,
  };
}
