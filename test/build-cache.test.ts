/**
 * The Go caches kept per folder for confined gopls, go vet and delve: one per folder, and gone when the folder is —
 * one checkout per conversation left ~30 MB each behind for good (the suite alone left 1.6 GB in 89 of them).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { goBuildCache, sweepGone } from "../src/proc/build-cache.js";
import { workdirWith } from "./helpers.js";

describe("Go caches per folder", () => {
  it("each folder has its own, named by a record beside it; the same folder gets the same one", async () => {
    const [a, b] = [await workdirWith(), await workdirWith()];
    const first = goBuildCache(a);
    expect(goBuildCache(a)).toEqual(first);
    expect(goBuildCache(b).dir).not.toBe(first.dir);
    expect(first.env).toEqual({ GOCACHE: first.dir, GOPLSCACHE: path.join(first.dir, "gopls") });
    expect(readFileSync(`${first.dir}.folder`, "utf8")).toBe(`${a}\n`);
  });

  it("a sweep removes the caches of folders that are gone and those without a record, following no link", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "runbound-go-build-"));
    const alive = mkdtempSync(path.join(tmpdir(), "runbound-alive-"));
    const outside = path.join(alive, "precious.txt");
    writeFileSync(outside, "keep me\n");
    try {
      for (const name of ["kept", "gone", "unrecorded"])
        mkdirSync(path.join(root, name, "gopls"), { recursive: true });
      writeFileSync(path.join(root, "kept.folder"), `${alive}\n`);
      writeFileSync(path.join(root, "gone.folder"), "/nonexistent/runbound-folder\n");
      // What a sandbox could leave in a cache it wrote: a link out of it.
      symlinkSync(outside, path.join(root, "gone", "link"));
      await sweepGone(root);
      expect(readdirSync(root).sort()).toEqual(["kept", "kept.folder"]);
      expect(existsSync(outside)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(alive, { recursive: true, force: true });
    }
  });
});
