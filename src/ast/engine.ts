/**
 * The `ast` resource of a run: structural search (ast_grep), staged rewrite (ast_edit) and its commit or
 * discard (resolve). Staged edits belong to the run and die with it.
 */
import { statSync } from "node:fs";
import { totalmem } from "node:os";
import path from "node:path";
import {
  BODY_VAR,
  ensureGrammars,
  GRAMMARS,
  type Grammar,
  grammarById,
  grammarForFile,
  grammarReady,
} from "../../grammars/index.js";
import { withCompleteness } from "../completeness.js";
import { ToolError } from "../errors.js";
import { type ConfinedPath, confine, toPosix } from "../files/paths.js";
import { notRegularMessage, specialKind } from "../files/regular.js";
import { plural } from "../files/text.js";
import { quotedValue } from "../files/visible.js";
import { idleSecondsOf } from "../idle.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { setupCommand } from "../setup/components.mjs";
import { SEARCH_PROCESSES, SearchPool } from "./processes/pool.js";
import { explain } from "./query/explain.js";
import { checkQueryArgs, compileQuery, type Query, type QueryArgs } from "./query/query.js";
import { templateNames } from "./rewrite/rewrite.js";
import { StagedEdits, type StagedFile } from "./rewrite/staged-edits.js";
import { MAX_PREVIEW, MAX_REPLACEMENTS } from "./rewrite/staging.js";
import { type FileRef, type SearchPlace, searchFiles } from "./search.js";
import { rowsByFile } from "./snippet.js";
import { sourceFiles, withinSizeLimit } from "./walk.js";

export interface ScopeArgs extends QueryArgs {
  path?: string | undefined;
  language?: string | undefined;
}

const MAX_OVERLAPS_NAMED = 20;

export interface AstOptions {
  /**
   * Megabytes of parsed trees the run keeps between searches (split among its search processes), so that searching
   * the same files again skips parsing; a tree is reused only while its file's text is unchanged. 0 keeps none.
   * Default: 512, or a sixteenth of the machine's memory when that is less.
   */
  readonly treeCacheMB?: number;
  /**
   * Files larger than this many kilobytes are not parsed — named in the answer as skipped (a 50 MB minified file
   * took the host from 0.7 to 6.6 GB per search). Default 1024.
   */
  readonly maxFileKB?: number;
  /**
   * Seconds a search (ast_grep, ast_edit) may run before it is stopped — its search processes ended, the answer
   * naming the files still being matched. Default 120.
   */
  readonly searchSeconds?: number;
  /**
   * The search processes end after this many seconds without a search (their kept trees with them: the next
   * search parses again). Default 600; 0 or false: never.
   */
  readonly idleSeconds?: number | false;
}

/** What a search cost: files parsed now, files whose tree an earlier search kept. */
export interface SearchCost {
  readonly parsed: number;
  readonly reused: number;
}

export class AstEngine {
  readonly #workdir: string;
  readonly #processes: ProcessTracker;
  readonly #maxFileBytes: number;
  readonly #edits: StagedEdits;
  readonly #pool: SearchPool;
  readonly #searchSeconds: number;
  #searches = 0;

  /**
   * `processes`: where a search process for files over a megabyte is started (and ended with the run);
   * `grammarsFrom`: the npm folder of runbound's home, where `runbound setup --only grammars` put the other grammars.
   */
  constructor(workdir: string, processes: ProcessTracker, options: AstOptions = {}, grammarsFrom?: string) {
    this.#workdir = workdir;
    this.#processes = processes;
    this.#maxFileBytes = (options.maxFileKB ?? 1024) * 1024;
    this.#edits = new StagedEdits(workdir);
    if (!Number.isFinite(this.#maxFileBytes) || this.#maxFileBytes <= 0)
      throw new TypeError(`ast.maxFileKB must be a number of kilobytes > 0, got ${options.maxFileKB}`);
    const mb = options.treeCacheMB ?? Math.min(512, Math.floor(totalmem() / 16 / 2 ** 20));
    if (!Number.isFinite(mb) || mb < 0)
      throw new TypeError(`ast.treeCacheMB must be a number of megabytes ≥ 0, got ${mb}`);
    this.#searchSeconds = options.searchSeconds ?? 120;
    if (!Number.isFinite(this.#searchSeconds) || this.#searchSeconds <= 0)
      throw new TypeError(`ast.searchSeconds must be a number of seconds > 0, got ${options.searchSeconds}`);
    // One share per search process.
    this.#pool = new SearchPool(
      processes,
      (mb * 2 ** 20) / SEARCH_PROCESSES,
      idleSecondsOf(options.idleSeconds, "ast.idleSeconds") * 1000,
      grammarsFrom,
    );
    ensureGrammars(grammarsFrom);
  }

  /** The grammar and where to search: a file (its language inferred or checked), or a folder with `language`. */
  async #where(args: ScopeArgs): Promise<{ grammar: Grammar; target: ConfinedPath; isFile: boolean }> {
    checkQueryArgs(args);
    const target = await confine(this.#workdir, args.path ?? ".", "path");
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(target.real);
    } catch {
      throw new ToolError(
        `\`path\` ${target.shown} does not exist; give a file or folder inside the workdir (default: all of it).`,
      );
    }
    const named = args.language !== undefined ? grammarById(args.language) : undefined;
    if (args.language !== undefined && !named) {
      throw new ToolError(
        `\`language\` ${quotedValue(args.language)} is not in the grammar bundle; use one of: ${GRAMMARS.map((g) => g.id).join(", ")}.`,
      );
    }
    const kind = specialKind(info);
    if (kind) throw new ToolError(notRegularMessage(`\`path\` ${target.shown}`, kind, "ast_grep"));
    if (info.isFile()) {
      const inferred = grammarForFile(target.real);
      if (!inferred && !named) {
        throw new ToolError(
          `Cannot tell the language of ${target.shown} from its extension; give \`language\` (one of: ${GRAMMARS.map((g) => g.id).join(", ")}).`,
        );
      }
      if (named && inferred && named.id !== inferred.id && !sameFamily(named, inferred)) {
        throw new ToolError(
          `\`language\` ${named.id} does not match ${target.shown}, which is ${inferred.id}; drop \`language\` or pass ${inferred.id}.`,
        );
      }
      return { grammar: installed(named ?? inferred!), target, isFile: true };
    }
    if (!named) {
      const counts = new Map<string, number>();
      for (const f of await sourceFiles(target.real, (f) => grammarForFile(f) !== undefined))
        counts.set(grammarForFile(f)!.id, (counts.get(grammarForFile(f)!.id) ?? 0) + 1);
      const present = [...counts]
        .sort((a, b) => b[1] - a[1])
        .map(([id, n]) => `${id} (${plural(n, "file")})`);
      throw new ToolError(
        `\`language\` is needed to search a folder: ${target.rel === "." ? "the workdir" : target.shown} holds ${present.length ? present.join(", ") : "no source file of a known language"}.`,
      );
    }
    return { grammar: installed(named), target, isFile: false };
  }

  async #scope(
    args: ScopeArgs,
    body = "_",
  ): Promise<{
    grammar: Grammar;
    files: FileRef[];
    where: string;
    query: Query;
    skipped: string;
  }> {
    const { grammar, target, isFile } = await this.#where(args);
    const files = isFile
      ? [{ abs: target.real, rel: target.rel }]
      : (
          await sourceFiles(target.real, (f) => grammar.extensions.includes(path.extname(f).toLowerCase()))
        ).map((abs) => ({ abs, rel: this.#rel(abs) }));
    const query = compileQuery(grammar, args, body);
    const { kept, skipped } = await withinSizeLimit(files, this.#maxFileBytes);
    if (kept.length === 0 && skipped) throw new ToolError(`Nothing was searched: ${skipped}`);
    return { grammar, files: kept, where: target.shown, query, skipped };
  }

  async search(
    args: ScopeArgs & { max_results?: number | undefined; explain?: boolean | undefined },
    signal: AbortSignal,
  ) {
    if (args.explain) return this.#explain(args);
    const { grammar, files, where, query, skipped } = await this.#scope(args);
    const limit = args.max_results ?? 50;
    const outcome = await searchFiles(files, grammar, query.matcher, signal, this.#nextSearch(), {
      keep: limit,
    });
    const total = outcome.files.reduce((n, f) => n + f.total, 0);
    const shown = outcome.files.flatMap((f) => f.matches).slice(0, limit);
    const how = query.how;
    const scope = `${plural(outcome.searched, `${grammar.id} file`)} under ${where}`;
    const header = total
      ? `${plural(total, "match", "matches")} in ${plural(outcome.files.length, "file")} (${total > shown.length ? `showing ${shown.length} of ${total}; ` : ""}searched ${scope}; ${how}):`
      : `No matches in ${scope} (${how}; ${outcome.parsed + outcome.reused} of them contain its words and were matched structurally).`;
    const rows = rowsByFile(shown);
    const incomplete = [
      total > shown.length ? `showing ${shown.length} of ${total} matches (max_results ${limit})` : "",
      skipped ? "files over the size limit were not searched (named above)" : "",
      outcome.unreadable
        ? `${plural(outcome.unreadable, "file")} could not be read when ${outcome.unreadable === 1 ? "its" : "their"} turn came (gone, or not a regular file)`
        : "",
    ].filter(Boolean);
    const answer = withCompleteness(
      { text: [header, ...rows, ...(skipped ? [skipped] : [])].join("\n"), structured: {} },
      incomplete,
    );
    return {
      cost: costOf(outcome),
      ranOn: outcome.ranOn,
      text: answer.text,
      structured: {
        ...answer.structured,
        language: grammar.id,
        rung: query.rung,
        selector: query.selector,
        total,
        files: outcome.files.length,
        searched: outcome.searched,
        matches: shown.map((m) => ({
          path: m.path,
          line: m.line,
          column: m.column,
          end_line: m.endLine,
          end_column: m.endColumn,
          text: m.text,
          captures: m.captures,
        })),
      },
    };
  }

  /** How the pattern (or each of the rule's) parses: no file is read. */
  async #explain(args: ScopeArgs) {
    checkQueryArgs(args);
    const named = args.language !== undefined ? grammarById(args.language) : undefined;
    if (args.language !== undefined && !named)
      throw new ToolError(
        `\`language\` ${quotedValue(args.language)} is not in the grammar bundle; use one of: ${GRAMMARS.map((g) => g.id).join(", ")}.`,
      );
    const file = args.path !== undefined ? await confine(this.#workdir, args.path, "path") : undefined;
    const grammar = named ?? (file ? grammarForFile(file.real) : undefined);
    if (!grammar)
      throw new ToolError("`explain` needs `language` (or `path` of a file, whose extension names it).");
    const explained = explain(grammar, args);
    return {
      cost: { parsed: 0, reused: 0 },
      ranOn: [],
      text: explained.text,
      structured: {
        language: grammar.id,
        rung: explained.rung,
        selector: explained.selector,
        total: 0,
        files: 0,
        searched: 0,
        matches: [],
      },
    };
  }

  async stage(args: ScopeArgs & { rewrite: string }, signal: AbortSignal) {
    const { grammar, files, where, query, skipped } = await this.#scope(args, bodyName(args));
    const rewrite = withCarriedBody(grammar, query, args.rewrite);
    checkTemplate(rewrite, query);
    const outcome = await searchFiles(files, grammar, query.matcher, signal, this.#nextSearch(), {
      rewrite,
    });
    const count = outcome.files.reduce((n, f) => n + f.total, 0);
    if (count > MAX_REPLACEMENTS)
      throw new ToolError(
        `The pattern matches ${outcome.files.some((f) => f.more) ? "more than " : ""}${count.toLocaleString("en-US")} places in ${plural(outcome.files.length, "file")}, more than the ${MAX_REPLACEMENTS.toLocaleString("en-US")} one ast_edit stages; nothing was staged. Narrow \`path\` or the pattern, and rewrite in parts.`,
      );
    const staged: StagedFile[] = [];
    for (const found of outcome.files) {
      if (!found.staged) continue;
      if ("refused" in found.staged) throw new ToolError(found.staged.refused);
      if (found.staged.updated !== found.text)
        staged.push({
          file: found.file,
          original: found.text,
          updated: found.staged.updated,
          replacements: found.staged.replacements,
        });
    }
    const preview = outcome.files.flatMap((f) => (f.staged && "preview" in f.staged ? f.staged.preview : []));
    const nestedCount = outcome.files.reduce((n, f) => n + (f.nested?.count ?? 0), 0);
    const overlaps = outcome.files.flatMap((f) => f.nested?.named ?? []).slice(0, MAX_OVERLAPS_NAMED);
    const replacements = staged.reduce((n, f) => n + f.replacements, 0);
    const how = `${query.how}${rewrite === args.rewrite ? "" : `; the rewrite read as \`${rewrite.replace(/\n/g, " ⏎ ")}\` (the body carried over unchanged)`}`;

    if (replacements === 0) {
      // Matched, but the rewrite gives each match back as it was: "no matches" would send the model after a pattern.
      const found = count
        ? `${plural(count, "match", "matches")} in ${plural(outcome.files.filter((f) => f.total).length, "file")} under ${where} (${how}), but the rewrite gives back the same text for ${count === 1 ? "it" : "each"}`
        : `No matches in ${plural(outcome.searched, `${grammar.id} file`)} under ${where} (${how})`;
      return {
        cost: costOf(outcome),
        text: `${found}; nothing was staged.${skipped ? `\n${skipped}` : ""}`,
        structured: { edit_id: null, replacements: 0, files: [], overlaps },
      };
    }
    const id = this.#edits.add(staged, replacements);
    const shownPreview = preview.slice(0, MAX_PREVIEW);
    const lines = [
      `(proposed) ${plural(replacements, "replacement")} in ${plural(staged.length, "file")} — nothing is written yet; call resolve with edit_id "${id}" and action "accept" (or "discard"). ${how[0]!.toUpperCase()}${how.slice(1)}.`,
      ...shownPreview,
      ...(preview.length > shownPreview.length || replacements > shownPreview.length
        ? [`(showing ${shownPreview.length} of ${plural(replacements, "replacement")})`]
        : []),
      ...(nestedCount
        ? [
            `${plural(nestedCount, "match", "matches")} inside another match ${nestedCount === 1 ? "was" : "were"} not rewritten (the outer one was): ${overlaps.join(", ")}${nestedCount > overlaps.length ? ` (showing ${overlaps.length} of ${nestedCount})` : ""}. Run ast_edit again after resolving to rewrite ${nestedCount === 1 ? "it" : "them"}.`,
          ]
        : []),
      ...(skipped ? [skipped] : []),
    ];
    return {
      cost: costOf(outcome),
      text: lines.join("\n"),
      structured: {
        edit_id: id,
        replacements,
        files: staged.map((f) => ({ path: f.file.rel, replacements: f.replacements })),
        overlaps,
      },
    };
  }

  /** What resolve would refuse, found before any approval: an edit_id not staged, a file changed since. */
  async checkResolve(args: { edit_id: string; action: "accept" | "discard" }): Promise<void> {
    await this.#edits.check(args);
  }

  async resolve(args: { edit_id: string; action: "accept" | "discard" }) {
    return this.#edits.resolve(args);
  }

  /** What ast_edit would refuse before searching: the scope, the query, a template naming what it does not bind. */
  async checkStage(args: ScopeArgs & { rewrite: string }): Promise<void> {
    // Where and what, not the files: the search lists them when the call runs.
    const { grammar } = await this.#where(args);
    const query = compileQuery(grammar, args, bodyName(args));
    checkTemplate(withCarriedBody(grammar, query, args.rewrite), query);
  }

  /** Where the next search runs, numbered for the tree caches. */
  #nextSearch(): SearchPlace {
    return {
      pool: this.#pool,
      search: ++this.#searches,
      processes: this.#processes,
      seconds: this.#searchSeconds,
    };
  }

  /** Ends the search processes (their kept trees with them); staged edits die with the run. */
  async dispose(): Promise<void> {
    this.#edits.clear();
    await this.#pool.dispose();
  }

  #rel(abs: string): string {
    return toPosix(path.relative(this.#workdir, abs));
  }
}

function costOf(outcome: SearchCost): SearchCost {
  return { parsed: outcome.parsed, reused: outcome.reused };
}

function sameFamily(a: Grammar, b: Grammar): boolean {
  // Angular's templates are .html files.
  const families = [
    ["typescript", "tsx", "javascript"],
    ["c", "cpp"],
    ["html", "angular"],
  ];
  return families.some((f) => f.includes(a.id) && f.includes(b.id));
}

/** A rewrite may only use the metavariables its pattern binds. */
function checkTemplate(rewrite: string, query: Query): void {
  const bound = new Set([...query.matcher.singles, ...query.matcher.multiples]);
  const unknown = templateNames(rewrite).filter((n) => !bound.has(n));
  if (unknown.length)
    throw new ToolError(
      `\`rewrite\` uses ${unknown.map((n) => `$${n}`).join(", ")}, which the pattern does not bind (it binds ${[...bound].map((n) => `$${n}`).join(", ") || "nothing"}). Nothing was staged.`,
    );
}

/**
 * A name for a completed header's body that the pattern does not use. The rewrite may name it: that is where it
 * puts the body (`def $F($$$A):\n    log()\n    $$$BODY`).
 */
function bodyName(args: { pattern?: string | undefined }): string {
  const used = args.pattern ?? "";
  let name = "BODY";
  for (let n = 2; new RegExp(`\\$${name}\\b`).test(used); n++) name = `BODY${n}`;
  return name;
}

/**
 * A rewrite of a header whose pattern was completed (`def $F($$$A):` → `async def $F($$$A):`) gets the same body
 * after it, so the body is carried over unchanged; a rewrite that names the body itself is left as written.
 */
function withCarriedBody(grammar: Grammar, query: Query, rewrite: string): string {
  const body = query.completed?.body;
  if (!body || body === "_" || templateNames(rewrite).includes(body)) return rewrite;
  const completion = grammar.rewriteBody ?? grammar.body ?? "";
  return `${rewrite.trimEnd()}${completion.replace(BODY_VAR, `$$$$$$${body}`)}`;
}

/** The grammar, if its parser is here; else the one command that brings it. */
function installed(grammar: Grammar): Grammar {
  if (grammarReady(grammar)) return grammar;
  throw new ToolError(
    `The ${grammar.id} grammar is not installed: ${setupCommand("grammars")} brings it (and every other grammar ast-grep publishes) into runbound's home; a harness started before that loads it when it restarts.`,
  );
}
