/**
 * The source files under a folder, as a person searching a project expects: every .gitignore on the way is
 * honoured (each relative to its own folder), and hidden folders and node_modules are skipped.
 */
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

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
    let rules = inherited;
    if (entries.some((e) => e.name === ".gitignore" && e.isFile())) {
      try {
        rules = [
          ...inherited,
          { base: folder, rules: ignore().add(readFileSync(path.join(folder, ".gitignore"), "utf8")) },
        ];
      } catch {
        // an unreadable .gitignore ignores nothing
      }
    }
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
