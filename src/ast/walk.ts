/**
 * The source files under a folder, as a person searching a project expects: every .gitignore on the way is
 * honoured (each relative to its own folder), and hidden folders and node_modules are skipped; files over the
 * per-file size limit are left out and named.
 */
import { type Dirent, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Ignore } from "ignore";
import { gitignoreIn } from "../files/gitignore.js";
import { plural, sizeText } from "../files/text.js";
import { shownPath } from "../files/visible.js";
import type { FileRef } from "./match.js";

interface Rules {
  readonly base: string;
  readonly rules: Ignore;
}

/** Entries and stats between two yields to the event loop: a folder of 100,000 files held it ~1 s a search. */
const SLICE = 1000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function sourceFiles(dir: string, accept: (file: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  let seen = 0;
  const visit = async (folder: string, inherited: readonly Rules[]) => {
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    const own = entries.some((e) => e.name === ".gitignore" && e.isFile()) ? gitignoreIn(folder) : undefined;
    const rules = own ? [...inherited, { base: folder, rules: own }] : inherited;
    for (const entry of entries) {
      if (++seen % SLICE === 0) await yieldToLoop();
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = path.join(folder, entry.name);
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      if (rules.some((r) => r.rules.ignores(path.relative(r.base, full) + (isDir ? "/" : "")))) continue;
      if (isDir) await visit(full, rules);
      else if (accept(full)) out.push(full);
    }
  };
  await visit(dir, []);
  return out.sort();
}

/** Files over the per-file limit are left out and named: "" when none is. */
export async function withinSizeLimit(
  files: readonly FileRef[],
  maxFileBytes: number,
): Promise<{ kept: FileRef[]; skipped: string }> {
  const kept: FileRef[] = [];
  const over: { rel: string; size: number }[] = [];
  for (const [i, file] of files.entries()) {
    if (i % SLICE === SLICE - 1) await yieldToLoop();
    let size = 0;
    try {
      size = statSync(file.abs).size;
    } catch {
      // Unreadable: matchFile skips it.
    }
    if (size > maxFileBytes) over.push({ rel: file.rel, size });
    else kept.push({ ...file, size });
  }
  if (over.length === 0) return { kept, skipped: "" };
  const named = over.slice(0, 5).map((f) => `${shownPath(f.rel)} (${sizeText(f.size)})`);
  const more = over.length > named.length ? ` and ${over.length - named.length} more` : "";
  return {
    kept,
    skipped: `${plural(over.length, "file")} over the ${(maxFileBytes / 1024).toLocaleString("en-US")} KB a search parses per file ${over.length === 1 ? "was" : "were"} skipped: ${named.join(", ")}${more} (minified or generated code, most often; the harness raises the limit with ast.maxFileKB).`,
  };
}
