/**
 * Writes that never leave a half-written file: the content goes to a temporary file beside the target, which is
 * then renamed over it (keeping the target's permission bits).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";

export function tempPathFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.runbound-${randomBytes(4).toString("hex")}.tmp`,
  );
}

export interface StagedFile {
  readonly temp: string;
  /** The first parent folder this created, if any (to remove on rollback). */
  readonly createdDir: string | undefined;
}

/** Writes `content` to a temporary file beside `target`, creating parent folders. */
export async function stageFile(target: string, content: string): Promise<StagedFile> {
  const createdDir = await mkdir(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  await writeFile(temp, content, { flag: "wx" });
  try {
    const { mode } = await stat(target);
    await chmod(temp, mode & 0o7777);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      await rm(temp, { force: true });
      throw error;
    }
  }
  return { temp, createdDir };
}

export async function writeAtomic(target: string, content: string): Promise<void> {
  const { temp } = await stageFile(target, content);
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
