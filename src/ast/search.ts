/**
 * Structural search over files: a literal prefilter (a file lacking one of the pattern's words is never parsed —
 * parsing is the whole cost), then parsing and matching — on the calling thread for a few files, on the run's
 * search workers (one per core) for more.
 */
import { readFileSync } from "node:fs";
import { parse } from "@ast-grep/napi";
import type { Grammar } from "../../grammars/index.js";
import type { CompiledPattern } from "./compile.js";
import { mayMatch, toMatch } from "./match.js";
import type { FileMatches, FileRef, SearchPool } from "./pool.js";

export type { AstMatch } from "./match.js";
export type { FileMatches, FileRef } from "./pool.js";

export interface SearchOutcome {
  readonly files: FileMatches[];
  readonly searched: number;
  readonly parsed: number;
}

/** Below this many files the workers' hand-off costs more than it saves. */
const LOCAL_LIMIT = 64;

export async function searchFiles(
  files: readonly FileRef[],
  grammar: Grammar,
  compiled: CompiledPattern,
  signal: AbortSignal,
  pool: SearchPool,
  withText: boolean,
): Promise<SearchOutcome> {
  let found: FileMatches[];
  let parsed: number;
  if (files.length <= LOCAL_LIMIT) {
    ({ found, parsed } = searchHere(files, grammar, compiled, signal));
  } else {
    ({ found, parsed } = await pool.search(grammar.lang, compiled.rule, compiled, files, withText, signal));
  }
  found.sort((a, b) => a.file.rel.localeCompare(b.file.rel));
  return { files: found, searched: files.length, parsed };
}

function searchHere(
  files: readonly FileRef[],
  grammar: Grammar,
  compiled: CompiledPattern,
  signal: AbortSignal,
) {
  const found: FileMatches[] = [];
  let parsed = 0;
  for (const file of files) {
    signal.throwIfAborted();
    let text: string;
    try {
      text = readFileSync(file.abs, "utf8");
    } catch {
      continue;
    }
    if (!mayMatch(text, compiled)) continue;
    parsed++;
    const nodes = parse(grammar.lang, text).root().findAll(compiled.rule);
    if (nodes.length)
      found.push({ file, text, matches: nodes.map((node) => toMatch(file.rel, text, node, compiled)) });
  }
  return { found, parsed };
}
