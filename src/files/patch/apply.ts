/**
 * Applies a parsed patch all or nothing: every hunk of every file is matched in memory first, then the whole
 * change is committed through files/commit.ts (staged, renamed into place, restored on a failure halfway).
 */
import { stat } from "node:fs/promises";
import { ToolError } from "../../errors.js";
import { commitChanges } from "../commit.js";
import { type ConfinedPath, confine } from "../paths.js";
import { readRegular, regularBytes } from "../regular.js";
import type { PatchFileResult, PatchResult } from "../schema.js";
import {
  MAX_TEXT_BYTES,
  normalize,
  oneLine,
  plural,
  shapeOf,
  splitLines,
  tooLargeToChange,
} from "../text.js";
import { firstNonUtf8Line, notUtf8Message } from "../utf8.js";
import { quotedValue, shownPath } from "../visible.js";
import { FileLines } from "./locate.js";
import { type FileOp, type Hunk, parsePatch } from "./parse.js";

export type { PatchFileResult, PatchResult };

interface Planned {
  readonly writes: { target: ConfinedPath; content: string }[];
  readonly deletes: ConfinedPath[];
  readonly report: PatchFileResult[];
  /** What each touched file held when planned; the commit refuses if any changed since. */
  readonly plannedFrom: Map<string, string | undefined>;
}

export async function applyPatch(
  workdir: string,
  patch: string,
): Promise<{ text: string; result: PatchResult; written: string[] }> {
  const ops = parsePatch(patch);
  const plan = await planPatch(workdir, ops);
  await commitChanges("apply_patch", plan);
  const letter = { added: "A", updated: "M", deleted: "D", moved: "R" } as const;
  const rows = plan.report.map((f) => {
    const counts = f.action === "deleted" ? "" : ` (+${f.added} -${f.removed})`;
    return `  ${letter[f.action]} ${shownPath(f.path)}${f.to ? ` → ${shownPath(f.to)}` : ""}${counts}`;
  });
  const written = [...new Set([...plan.writes.map((w) => w.target.rel), ...plan.deletes.map((d) => d.rel)])];
  return {
    text: `Applied the patch: ${plural(plan.report.length, "file")} changed.\n${rows.join("\n")}`,
    result: { files: plan.report },
    written,
  };
}

/** The patch parsed and planned as applyPatch would, nothing written: its refusal, if any, before any approval. */
export async function checkPatch(workdir: string, patch: string): Promise<void> {
  await planPatch(workdir, parsePatch(patch));
}

async function planPatch(workdir: string, ops: FileOp[]): Promise<Planned> {
  const plan: Planned = { writes: [], deletes: [], report: [], plannedFrom: new Map() };
  const touched = new Map<string, string>();
  const claim = (target: ConfinedPath, what: string) => {
    const previous = touched.get(target.real);
    if (previous)
      throw new ToolError(
        `\`patch\` touches ${target.shown} twice (${previous}, then ${what}); merge them into one section. Nothing was changed.`,
      );
    touched.set(target.real, what);
  };
  for (const op of ops) {
    const target = await confine(workdir, op.path, "patch path");
    const read = await readIfExists(target);
    const current = read?.text;
    plan.plannedFrom.set(target.real, current);
    if (op.kind === "add") {
      claim(target, "add");
      if (current !== undefined)
        throw new ToolError(
          `${target.shown} already exists; use \`*** Update File: ${target.shown}\` to change it. Nothing was changed.`,
        );
      plan.writes.push({ target, content: op.content });
      plan.report.push({
        path: target.rel,
        action: "added",
        added: splitLines(op.content).length,
        removed: 0,
      });
      continue;
    }
    if (current === undefined)
      throw new ToolError(
        `${target.shown} does not exist, so the patch cannot ${op.kind} it. Nothing was changed.`,
      );
    claim(target, op.kind);
    if (op.kind === "delete") {
      plan.deletes.push(target);
      plan.report.push({
        path: target.rel,
        action: "deleted",
        added: 0,
        removed: splitLines(normalize(current)).length,
      });
      continue;
    }
    if (read?.nonUtf8 !== undefined) throw new ToolError(notUtf8Message(target.shown, read.nonUtf8));
    const { text, added, removed } = applyHunks(target.shown, current, op.hunks);
    if (op.moveTo !== undefined) {
      const dest = await confine(workdir, op.moveTo, "move path");
      if (dest.real !== target.real) {
        claim(dest, "move destination");
        plan.plannedFrom.set(dest.real, undefined);
        if ((await readIfExists(dest)) !== undefined)
          throw new ToolError(
            `cannot move ${target.shown} to ${dest.shown}: it already exists. Nothing was changed.`,
          );
        plan.writes.push({ target: dest, content: text });
        plan.deletes.push(target);
        plan.report.push({ path: target.rel, action: "moved", to: dest.rel, added, removed });
        continue;
      }
    }
    plan.writes.push({ target, content: text });
    plan.report.push({ path: target.rel, action: "updated", added, removed });
  }
  return plan;
}

/** The file's text, and where it first is not UTF-8 (a hunk applied to it would write U+FFFD there). */
async function readIfExists(target: ConfinedPath): Promise<{ text: string; nonUtf8?: number } | undefined> {
  try {
    const info = await stat(target.real);
    if (info.isDirectory())
      throw new ToolError(`${target.shown} is a directory; a patch changes files. Nothing was changed.`);
    if (info.size > MAX_TEXT_BYTES)
      throw new ToolError(tooLargeToChange(target.shown, info.size, "apply_patch"));
    const bytes = regularBytes(await readRegular(target.real), target.shown, "apply_patch");
    const nonUtf8 = firstNonUtf8Line(bytes);
    return { text: bytes.toString("utf8"), ...(nonUtf8 === undefined ? {} : { nonUtf8 }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The file's new text after every hunk, or a ToolError naming the hunk that does not match and why. Hunks are placed
 * in the file as it was (a hunk is sought after the one before it, so nothing it looks at has changed yet), then the
 * file is put together once: replacing each hunk's lines as it was placed moved the rest of the file every time.
 */
export function applyHunks(
  shown: string,
  raw: string,
  hunks: Hunk[],
): { text: string; added: number; removed: number } {
  const shape = shapeOf(raw);
  const normalized = normalize(raw);
  const lines = splitLines(normalized);
  // Each line's own ending: lines no hunk replaces keep theirs (a file may mix them).
  const ends = lineEnds(raw, lines.length);
  const file = new FileLines(lines, shown);
  const placed: { at: number; length: number; lines: string[]; ends: string[] }[] = [];
  let finalNewline = normalized === "" || normalized.endsWith("\n");
  let cursor = 0;
  let added = 0;
  let removed = 0;
  hunks.forEach((hunk, index) => {
    const where = `hunk ${index + 1} of ${shown}`;
    if (hunk.anchor !== undefined) {
      const at = file.findLine(hunk.anchor, cursor);
      if (at === -1) {
        throw new ToolError(
          `${where}: its \`@@ ${hunk.anchor}\` line is not in the file after line ${cursor}. Read the file and make the patch again. Nothing was changed.`,
        );
      }
      cursor = at + 1;
    }
    const oldLines = hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
    let at: number;
    if (oldLines.length === 0) {
      at =
        hunk.hint !== undefined
          ? Math.min(lines.length, Math.max(cursor, hunk.hint))
          : hunk.anchor !== undefined
            ? cursor
            : lines.length;
    } else {
      const hint = hunk.hint !== undefined ? hunk.hint - 1 : undefined;
      at = file.findBlock(oldLines, cursor, hint, hunk.endOfFile);
      if (at === -1) throw new ToolError(mismatchMessage(where, file, lines, oldLines, cursor));
    }
    placed.push({ at, length: oldLines.length, ...hunkLines(hunk, lines, ends, at, shape.eol) });
    cursor = at + oldLines.length;
    added += hunk.lines.filter((l) => l.op === "+").length;
    removed += hunk.lines.filter((l) => l.op === "-").length;
    const newLength = hunk.lines.filter((l) => l.op !== "-").length;
    if (hunk.noNewlineAtEnd) finalNewline = false;
    else if (cursor === lines.length && newLength > 0 && hunk.hint !== undefined) finalNewline = true;
  });
  const out = { lines: [] as string[], ends: [] as string[] };
  let from = 0;
  for (const hunk of placed) {
    for (let i = from; i < hunk.at; i++) {
      out.lines.push(lines[i]!);
      out.ends.push(ends[i]!);
    }
    // One by one: spread as arguments, a hunk of a million lines overflowed the stack.
    for (const [i, line] of hunk.lines.entries()) {
      out.lines.push(line);
      out.ends.push(hunk.ends[i]!);
    }
    from = hunk.at + hunk.length;
  }
  for (let i = from; i < lines.length; i++) {
    out.lines.push(lines[i]!);
    out.ends.push(ends[i]!);
  }
  const last = out.lines.length - 1;
  const body = out.lines
    .map((line, i) => line + (i < last || finalNewline ? out.ends[i] || shape.eol : ""))
    .join("");
  return { text: shape.bom ? `\uFEFF${body}` : body, added, removed };
}

/** Each of the first `count` lines' endings in the raw text ("" for a last line without one). */
function lineEnds(raw: string, count: number): string[] {
  const ends: string[] = [];
  for (let at = 0; ends.length < count; ) {
    const next = raw.indexOf("\n", at);
    if (next === -1) {
      ends.push("");
      break;
    }
    ends.push(raw.charCodeAt(next - 1) === 13 ? "\r\n" : "\n");
    at = next + 1;
  }
  return ends;
}

/**
 * A hunk's lines as they go into the file: a context line as the file has it (the hunk may have matched it
 * ignoring whitespace), an added line with the ending of the line it replaces or follows.
 */
function hunkLines(hunk: Hunk, lines: string[], ends: string[], at: number, eol: string) {
  const out = { lines: [] as string[], ends: [] as string[] };
  let old = at;
  let ending = ends[at] || eol;
  for (const line of hunk.lines) {
    if (line.op === "+") {
      out.lines.push(line.text);
      out.ends.push(ending);
      continue;
    }
    ending = ends[old] || eol;
    if (line.op === " ") {
      out.lines.push(lines[old] ?? line.text);
      out.ends.push(ends[old] ?? eol);
    }
    old++;
  }
  return out;
}

const QUOTED_CHARS = 200;
const quoted = (line: string | undefined) =>
  line === undefined ? '"(end of file)"' : quotedValue(line, QUOTED_CHARS);

function mismatchMessage(
  where: string,
  file: FileLines,
  lines: readonly string[],
  block: string[],
  from: number,
): string {
  const { at: bestAt, run: bestRun } = file.closest(block, from);
  // Lines are quoted cut: a line of a minified file (or of a hostile patch) may be megabytes long.
  const expected = block
    .slice(0, 3)
    .map((l) => `  ${oneLine(l, QUOTED_CHARS)}`)
    .join("\n");
  const closest =
    bestAt === -1
      ? "No line of the file starts it."
      : `The closest place is line ${bestAt + 1}, where ${bestRun.toLocaleString("en-US")} of ${block.length.toLocaleString("en-US")} lines agree; line ${bestAt + bestRun + 1} of the file is ${quoted(lines[bestAt + bestRun])} but the patch expects ${quoted(block[bestRun])}.`;
  const scope = from === 0 ? "no place in the file" : `no place after line ${from}`;
  return `${where} does not match the file: ${scope} has its context and removed lines, which begin:\n${expected}\n${closest} Read the file and make the patch again. Nothing was changed.`;
}
