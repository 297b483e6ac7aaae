/**
 * Parses the two patch formats apply_patch accepts into one list of file operations:
 * - the `*** Begin Patch` envelope (Add File / Update File [+ Move to] / Delete File, `@@` hunks);
 * - plain unified diffs (`--- a/x` / `+++ b/x` / `@@ -l,c +l,c @@`, git headers, /dev/null, renames).
 */
import { ToolError } from "../../errors.js";
import { quotedValue, unquotedPath } from "../visible.js";

export interface HunkLine {
  readonly op: " " | "-" | "+";
  readonly text: string;
}

export interface Hunk {
  /** Envelope `@@ <line>`: seek to this line before matching. */
  readonly anchor?: string;
  readonly lines: HunkLine[];
  /** The hunk must match at the end of the file. */
  endOfFile: boolean;
  /** Unified diffs: the 1-based old start line, used to pick among several matches. */
  readonly hint?: number;
  /** Unified diffs: `\ No newline at end of file` after the new side's last line. */
  noNewlineAtEnd?: boolean;
}

export type FileOp =
  | { readonly kind: "add"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string }
  | { readonly kind: "update"; readonly path: string; readonly moveTo?: string; readonly hunks: Hunk[] };

export function parsePatch(patch: string): FileOp[] {
  const all = patch.replace(/\r\n/g, "\n").split("\n");
  // Blank lines around the patch are left out by index (shifting them off one by one was quadratic in their number).
  const first = all.findIndex((line) => line.trim() !== "");
  const last = all.findLastIndex((line) => line.trim() !== "");
  const lines = first === -1 ? [] : all.slice(first, last + 1);
  if (lines[0]?.trim() === "*** Begin Patch") return parseEnvelope(lines);
  if (lines.some((l) => l.startsWith("--- ")) && lines.some((l) => l.startsWith("+++ ")))
    return parseUnified(lines);
  throw new ToolError(
    "`patch` is in neither format apply_patch takes: start with `*** Begin Patch` (then `*** Update File: path`, " +
      "`@@` hunks, `*** End Patch`), or give a unified diff with `--- a/path`, `+++ b/path` and `@@ -l,c +l,c @@` hunks.",
  );
}

function fail(lineNo: number, message: string): never {
  throw new ToolError(`\`patch\` line ${lineNo}: ${message} Nothing was changed.`);
}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

function parseEnvelope(lines: string[]): FileOp[] {
  const last = lines.length - 1;
  if (lines[last]?.trim() !== "*** End Patch") fail(lines.length, "the patch must end with `*** End Patch`.");
  const ops: FileOp[] = [];
  let i = 1;
  while (i < last) {
    const line = lines[i] ?? "";
    const header = FILE_HEADER.exec(line.trim());
    if (!header) {
      fail(
        i + 1,
        `expected \`*** Add File: path\`, \`*** Update File: path\`, \`*** Delete File: path\` or \`*** End Patch\`, got ${quotedValue(line)}.`,
      );
    }
    const [, kind, rawPath] = header;
    const path = (rawPath ?? "").trim();
    i++;
    if (kind === "Delete") {
      ops.push({ kind: "delete", path });
      continue;
    }
    if (kind === "Add") {
      const body: string[] = [];
      while (i < last && !lines[i]?.startsWith("*** ")) {
        const l = lines[i] ?? "";
        if (!l.startsWith("+"))
          fail(i + 1, `every line of \`*** Add File: ${path}\` starts with "+", got ${quotedValue(l)}.`);
        body.push(l.slice(1));
        i++;
      }
      ops.push({ kind: "add", path, content: body.length ? `${body.join("\n")}\n` : "" });
      continue;
    }
    let moveTo: string | undefined;
    const move = /^\*\*\* Move to: (.+)$/.exec((lines[i] ?? "").trim());
    if (move) {
      moveTo = (move[1] ?? "").trim();
      i++;
    }
    const hunks: Hunk[] = [];
    let current: Hunk | undefined;
    while (i < last && !FILE_HEADER.test((lines[i] ?? "").trim())) {
      const l = lines[i] ?? "";
      if (l.startsWith("@@")) {
        const anchor = l.slice(2).trim();
        current = { ...(anchor ? { anchor } : {}), lines: [], endOfFile: false };
        hunks.push(current);
      } else if (l.trim() === "*** End of File") {
        if (!current) fail(i + 1, "`*** End of File` before any hunk line.");
        current.endOfFile = true;
      } else {
        if (!current) {
          current = { lines: [], endOfFile: false };
          hunks.push(current);
        }
        const op = l === "" ? " " : l[0];
        if (op !== " " && op !== "-" && op !== "+") {
          fail(
            i + 1,
            `a hunk line starts with " " (context), "-" (remove) or "+" (add), got ${quotedValue(l)}.`,
          );
        }
        current.lines.push({ op, text: l.slice(1) });
      }
      i++;
    }
    const empty = hunks.findIndex((h) => h.lines.length === 0);
    if (hunks.length === 0 && !moveTo) fail(i, `\`*** Update File: ${path}\` has no hunks.`);
    if (empty !== -1) fail(i, `hunk ${empty + 1} of ${path} has no lines.`);
    ops.push({ kind: "update", path, ...(moveTo ? { moveTo } : {}), hunks });
  }
  return ops;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function parseUnified(lines: string[]): FileOp[] {
  const ops: FileOp[] = [];
  let git = false;
  let renameFrom: string | undefined;
  let renameTo: string | undefined;
  let i = 0;
  const flushRename = () => {
    if (renameFrom && renameTo) ops.push({ kind: "update", path: renameFrom, moveTo: renameTo, hunks: [] });
    renameFrom = renameTo = undefined;
  };
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.startsWith("diff --git ")) {
      flushRename();
      git = true;
      i++;
      continue;
    }
    if (line.startsWith("rename from ")) renameFrom = headerPath(line.slice(12));
    if (line.startsWith("rename to ")) renameTo = headerPath(line.slice(10));
    if (line.startsWith("Binary files ") || line.startsWith("GIT binary patch")) {
      fail(i + 1, "binary patches are not supported; apply_patch changes text files.");
    }
    if (!(line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "))) {
      i++;
      continue;
    }
    const oldName = headerPath(line.slice(4));
    const newName = headerPath((lines[i + 1] ?? "").slice(4));
    const strip =
      git ||
      ((oldName.startsWith("a/") || oldName === "/dev/null") &&
        (newName.startsWith("b/") || newName === "/dev/null"));
    const oldPath = oldName === "/dev/null" ? undefined : strip ? oldName.replace(/^a\//, "") : oldName;
    const newPath = newName === "/dev/null" ? undefined : strip ? newName.replace(/^b\//, "") : newName;
    if (!oldPath && !newPath) fail(i + 1, "both sides are /dev/null.");
    i += 2;
    const hunks: Hunk[] = [];
    while (i < lines.length) {
      const header = HUNK_HEADER.exec(lines[i] ?? "");
      if (!header) break;
      const read = readUnifiedHunk(lines, i, header);
      i = read.next;
      const hunk = read.hunk;
      hunks.push(hunk);
    }
    if (!oldPath && newPath) {
      const body = hunks.flatMap((h) => h.lines.filter((l) => l.op === "+").map((l) => l.text));
      const noNewline = hunks[hunks.length - 1]?.noNewlineAtEnd === true;
      ops.push({
        kind: "add",
        path: newPath,
        content: body.length ? body.join("\n") + (noNewline ? "" : "\n") : "",
      });
    } else if (oldPath && !newPath) {
      ops.push({ kind: "delete", path: oldPath });
    } else if (oldPath && newPath) {
      const moved = oldPath !== newPath ? { moveTo: newPath } : {};
      ops.push({ kind: "update", path: oldPath, ...moved, hunks });
      if (renameFrom === oldPath) renameFrom = renameTo = undefined;
    }
  }
  flushRename();
  if (ops.length === 0) fail(1, "no file headers (`--- a/path` / `+++ b/path`) were found.");
  return ops;
}

/** One unified hunk from its header line at `at`: its lines, and where the next line is. */
function readUnifiedHunk(lines: string[], at: number, header: RegExpExecArray): { hunk: Hunk; next: number } {
  let i = at;
  const oldCount = header[2] === undefined ? 1 : Number(header[2]);
  const newCount = header[4] === undefined ? 1 : Number(header[4]);
  const hunk: Hunk = { lines: [], endOfFile: false, hint: Number(header[1]) };
  i++;
  let seenOld = 0;
  let seenNew = 0;
  while (i < lines.length && (seenOld < oldCount || seenNew < newCount)) {
    const l = lines[i] ?? "";
    if (l.startsWith("\\")) {
      if (!(lines[i - 1] ?? "").startsWith("-")) hunk.noNewlineAtEnd = true;
      i++;
      continue;
    }
    const op = l === "" ? " " : l[0];
    if (op !== " " && op !== "-" && op !== "+") {
      fail(
        i + 1,
        `the hunk header promised ${oldCount} old and ${newCount} new lines, but ${quotedValue(l)} is not a hunk line.`,
      );
    }
    hunk.lines.push({ op, text: l.slice(1) });
    if (op !== "+") seenOld++;
    if (op !== "-") seenNew++;
    i++;
  }
  if (seenOld < oldCount || seenNew < newCount)
    fail(i, "the patch ends inside a hunk (fewer lines than its header says).");
  // "\ No newline at end of file" after the hunk applies to the side of the line before it.
  while ((lines[i] ?? "").startsWith("\\")) {
    const prev = lines[i - 1] ?? "";
    if (!prev.startsWith("-")) hunk.noNewlineAtEnd = true;
    i++;
  }
  return { hunk, next: i };
}

function headerPath(raw: string): string {
  const trimmed = raw.trim();
  // git quotes a name with a tab, a newline, a quote or (by default) any byte past ASCII, in C escapes.
  const quoted = unquotedPath(trimmed);
  if (quoted !== undefined) return quoted;
  // "path\t2024-01-01 00:00:00" (diff -u timestamps).
  return raw.split("\t")[0]?.trim() ?? "";
}
