/** A folder's .gitignore as rules relative to that folder (the `ignore` package's, as git reads them). */
import { readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** The rules of `folder`'s own .gitignore; undefined when it has none, or it cannot be read (it ignores nothing). */
export function gitignoreIn(folder: string): Ignore | undefined {
  try {
    return ignore().add(readFileSync(path.join(folder, ".gitignore"), "utf8"));
  } catch {
    return undefined;
  }
}
