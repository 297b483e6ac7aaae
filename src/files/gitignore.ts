/** A folder's .gitignore as rules relative to that folder (the `ignore` package's, as git reads them). */
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { isBytes, readRegularSync } from "./regular.js";

/** The rules of `folder`'s own .gitignore; undefined when it has none, or it cannot be read (it ignores nothing). */
export function gitignoreIn(folder: string): Ignore | undefined {
  try {
    const bytes = readRegularSync(path.join(folder, ".gitignore"));
    return isBytes(bytes) ? ignore().add(bytes.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}
