/**
 * The Go caches kept per folder for confined gopls, go vet and delve: one per folder, and gone when the folder is —
 * one checkout per conversation left ~30 MB each behind for good (the suite alone left 1.6 GB in 89 of them) — and
 * bounded together, since a machine's checkouts that stay grew them without end.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { goCacheLine } from "../src/cli/doctor.js";
import { evictOldest, goBuildCache, goCacheCap, goCaches, sweepGone } from "../src/proc/build-cache.js";
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

describe("Go caches bounded", () => {
  it("past the cap the caches used longest ago go first, never one in use; doctor says their size and the cap", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "runbound-go-build-"));
    try {
      // Last used (their record's time): in-use first of all, then old, older-still, newest.
      const caches = [
        ["in-use", 1_000],
        ["oldest", 2_000],
        ["older", 3_000],
        ["newest", 4_000],
      ] as const;
      for (const [name, when] of caches) {
        mkdirSync(path.join(root, name, "gopls"), { recursive: true });
        writeFileSync(path.join(root, name, "gopls", "entry"), "x".repeat(1000));
        writeFileSync(path.join(root, `${name}.folder`), `/somewhere/${name}\n`);
        utimesSync(path.join(root, `${name}.folder`), when, when);
      }
      expect((await goCaches(root)).map((c) => [c.name, c.bytes])).toEqual([
        ["in-use", 1000],
        ["oldest", 1000],
        ["older", 1000],
        ["newest", 1000],
      ]);
      await evictOldest(root, 2500, new Set(["in-use"]));
      expect(readdirSync(root).sort()).toEqual(["in-use", "in-use.folder", "newest", "newest.folder"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(goCacheCap({ RUNBOUND_GO_CACHE_MB: "100" })).toBe(100 * 1024 * 1024);
    expect(goCacheCap({})).toBe(2048 * 1024 * 1024);
    expect(await goCacheLine()).toMatch(
      /^Go build caches: \d+ folders?, \d+ MB of 2048 MB \(RUNBOUND_GO_CACHE_MB;/,
    );
  });
});
