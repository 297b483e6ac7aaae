/**
 * The source files under a folder, as a person searching a project expects: every .gitignore on the way is
 * honoured (each relative to its own folder), and hidden folders and node_modules are skipped; files over the
 * per-file size limit are left out and named.
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
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

export function sourceFiles(dir: string, accept: (file: string) => boolean): string[] {
  const out: string[] = [];
  const visit = (folder: string, inherited: readonly Rules[]) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    const own = entries.some((e) => e.name === ".gitignore" && e.isFile()) ? gitignoreIn(folder) : undefined;
    const rules = own ? [...inherited, { base: folder, rules: own }] : inherited;
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = path.join(folder, entry.name);
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      if (rules.some((r) => r.rules.ignores(path.relative(r.base, full) + (isDir ? "/" : "")))) continue;
      if (isDir) visit(full, rules);
      else if (accept(full)) out.push(full);
    }
  };
  visit(dir, []);
  return out.sort();
}

/** Files over the per-file limit are left out and named: "" when none is. */
export function withinSizeLimit(
  files: readonly FileRef[],
  maxFileBytes: number,
): { kept: FileRef[]; skipped: string } {
  const kept: FileRef[] = [];
  const over: { rel: string; size: number }[] = [];
  for (const file of files) {
    let size = 0;
    try {
      size = statSync(file.abs).size;
    } catch {
      // Unreadable: matchFile skips it.
    }
    if (size > maxFileBytes) over.push({ rel: file.rel, size });
    else kept.push(file);
  }
  if (over.length === 0) return { kept, skipped: "" };
  const named = over.slice(0, 5).map((f) => `${shownPath(f.rel)} (${sizeText(f.size)})`);
  const more = over.length > named.length ? ` and ${over.length - named.length} more` : "";
  return {
    kept,
    skipped: `${plural(over.length, "file")} over the ${(maxFileBytes / 1024).toLocaleString("en-US")} KB a search parses per file ${over.length === 1 ? "was" : "were"} skipped: ${named.join(", ")}${more} (minified or generated code, most often; the harness raises the limit with ast.maxFileKB).`,
  };
}
