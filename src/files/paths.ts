/**
 * Every path a file tool touches is confined to the workdir: no `..` that leaves it, no absolute path outside it,
 * and no symbolic link (anywhere along the path) that leads out of it.
 */
// Synchronous on purpose: two metadata calls cost microseconds, their promise versions far more per path.
import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";
import { shownPath, unquotedPath, visibleLine } from "./visible.js";

export interface ConfinedPath {
  /** The path as named, made absolute. */
  readonly abs: string;
  /** Where reads and writes go: symbolic links inside the workdir resolved. */
  readonly real: string;
  /** Workdir-relative, with forward slashes: what structured results carry. */
  readonly rel: string;
  /** `rel` as answers' text shows it (quoted where the name could be misread: `shownPath`). */
  readonly shown: string;
}

/** Linux's limits: a name of at most 255 bytes, a path of at most 4,095 (the system says ENAMETOOLONG past them). */
const NAME_MAX = 255;
const PATH_MAX = 4095;

function tooLong(abs: string, argument: string): void {
  // No name can be too long in a path that is short enough as a whole (UTF-8 is at most 3 bytes per UTF-16 unit).
  if (abs.length * 3 <= NAME_MAX) return;
  const bytes = Buffer.byteLength(abs);
  if (bytes > PATH_MAX)
    throw new ToolError(
      `\`${argument}\` is ${bytes.toLocaleString("en-US")} bytes long as a full path; a path may have at most ${PATH_MAX.toLocaleString("en-US")}. Give a shorter one.`,
    );
  const long = abs.split(path.sep).find((name) => Buffer.byteLength(name) > NAME_MAX);
  if (long)
    throw new ToolError(
      `\`${argument}\` has a name of ${Buffer.byteLength(long).toLocaleString("en-US")} bytes ("${long.slice(0, 40)}…"); a file or folder name may have at most ${NAME_MAX} bytes.`,
    );
}

/**
 * A path argument of a call, confined. `workdir` must already be a real path (createRun resolves it). A path in the
 * quoted form answers show (`shownPath`) is the path it stands for.
 */
export async function confine(workdir: string, given: string, argument = "path"): Promise<ConfinedPath> {
  return confineHeld(workdir, unquotedPath(given) ?? given, argument);
}

/** A path runbound holds as it is (a written file's, a server's), confined: never read as a quoted one. */
export async function confineHeld(workdir: string, input: string, argument = "path"): Promise<ConfinedPath> {
  if (input.trim() === "") {
    throw new ToolError(`\`${argument}\` is empty: give a path inside the workdir, e.g. "src/index.ts".`);
  }
  if (input.includes("\0")) throw new ToolError(`\`${argument}\` contains a NUL character.`);
  const abs = path.resolve(workdir, input);
  tooLong(abs, argument);
  const rel = path.relative(workdir, abs);
  if (isOutside(rel)) {
    throw new ToolError(
      `\`${argument}\` "${visibleLine(input)}" is outside the workdir (${workdir}); use a path inside it, relative like "src/app.ts".`,
    );
  }
  const real = realOf(abs, input, argument);
  if (isOutside(path.relative(workdir, real))) {
    throw new ToolError(
      `\`${argument}\` "${visibleLine(input)}" goes through a symbolic link that leads outside the workdir (to ${real}); ` +
        "runbound does not read or write through it. Use a path whose target is inside the workdir.",
    );
  }
  const posix = toPosix(rel) || ".";
  return { abs, real, rel: posix, shown: shownPath(posix) };
}

/** Where `abs` leads: links resolved along the part of it that exists (the rest does not exist yet, no link). */
function realOf(abs: string, input: string, argument: string): string {
  // The common case, a path that exists, in one call.
  try {
    return realpathSync.native(abs);
  } catch {
    // Missing, or a link that leads nowhere: told apart below.
  }
  let existing = abs;
  let rest = "";
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      rest = rest ? path.join(path.basename(existing), rest) : path.basename(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  let realExisting: string;
  try {
    realExisting = realpathSync.native(existing);
  } catch {
    // A dangling link: where it points is unknowable, so it is not followed.
    throw new ToolError(
      `\`${argument}\` "${visibleLine(input)}" goes through a broken symbolic link; runbound does not follow it.`,
    );
  }
  return rest ? path.join(realExisting, rest) : realExisting;
}

/** `input` confined to the workdir, and there: a missing file is named as such before anything else is tried. */
export async function confineExisting(
  workdir: string,
  input: string,
  argument = "path",
): Promise<ConfinedPath> {
  const confined = await confine(workdir, input, argument);
  if (!existsSync(confined.real)) throw new ToolError(`\`${argument}\` ${confined.shown} does not exist.`);
  return confined;
}

function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

export function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}
