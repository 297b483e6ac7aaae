import { stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TreeCache } from "../src/ast/processes/tree-cache.js";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const never = new AbortController().signal;

async function engineWith(files: Record<string, string>, treeCacheMB?: number) {
  const workdir = await workdirWith(files);
  const run = track(
    await createRun({
      workdir,
      approver: "always",
      lsp: false,
      ...(treeCacheMB === undefined ? {} : { ast: { treeCacheMB } }),
    }),
  );
  const engine = run.resource("ast")!;
  const search = (pattern: string, where?: string) =>
    engine.search({ pattern, language: "python", max_results: 1000, path: where }, never);
  return { workdir, run, engine, search };
}

/** 150 files (the search workers' side) in three folders, a third of them calling legacy_call. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 150; i++)
    files[`pkg${i % 3}/m${String(i).padStart(3, "0")}.py`] =
      i % 3 === 0 ? `x = legacy_call(${i})\n` : `y = ${i}\n`;
  return files;
}

const capturesOf = (result: {
  structured: { matches: { path: string; captures: Record<string, string> }[] };
}) => Object.fromEntries(result.structured.matches.map((m) => [m.path, m.captures.N]));

describe("parsed trees are kept between searches of a run, and never outlive the text they were parsed from", () => {
  it("a second search over 150 files reuses every tree, with the same answer", async () => {
    const { search } = await engineWith(manyFiles());
    const first = await search("legacy_call($N)");
    expect(first.cost).toEqual({ parsed: 50, reused: 0 });
    const again = await search("legacy_call($N)");
    expect(again.cost).toEqual({ parsed: 0, reused: 50 });
    expect(again.text).toBe(first.text);
    expect(again.structured).toEqual(first.structured);
    // A pattern without words looks at every file: the 50 trees kept are reused, the other 100 parsed and kept.
    const other = await search("$F($N)");
    expect(other.cost).toEqual({ parsed: 100, reused: 50 });
    expect(other.structured.total).toBe(50);
    expect((await search("$F($N)")).cost).toEqual({ parsed: 0, reused: 150 });
  });

  it("a file changed outside the run — same length, same modification time — is parsed again and answered from its new text", async () => {
    const { workdir, search } = await engineWith(manyFiles());
    await search("legacy_call($N)");
    const file = path.join(workdir, "pkg0/m003.py");
    const before = await stat(file);
    await writeFile(file, "x = legacy_call(7)\n");
    await utimes(file, before.atime, before.mtime);
    const after = await search("legacy_call($N)");
    expect(after.cost).toEqual({ parsed: 1, reused: 49 });
    expect(capturesOf(after)["pkg0/m003.py"]).toBe("7");
  });

  it("after resolve rewrites the files, the next search sees the new text", async () => {
    const { run, search } = await engineWith(manyFiles());
    const client = await run.link({ surface: "full" });
    await search("legacy_call($N)");
    const staged = await call(client, "ast_edit", {
      pattern: "legacy_call($N)",
      rewrite: "modern_call($N + 1)",
      language: "python",
    });
    expect(textOf(staged)).toMatch(/^\(proposed\) 50 replacements in 50 files/);
    await call(client, "resolve", { edit_id: "edit_1", action: "accept" });
    expect((await search("legacy_call($N)")).structured.total).toBe(0);
    const modern = await search("modern_call($N)");
    expect(modern.cost).toEqual({ parsed: 50, reused: 0 });
    expect(capturesOf(modern)["pkg0/m003.py"]).toBe("3 + 1");
  });

  it("a search of a few files keeps its trees too, and a changed file is parsed again", async () => {
    const { workdir, search } = await engineWith({ "a.py": "f(1)\n", "b.py": "f(2)\n" });
    expect((await search("f($N)")).cost).toEqual({ parsed: 2, reused: 0 });
    expect((await search("f($N)")).cost).toEqual({ parsed: 0, reused: 2 });
    await writeFile(path.join(workdir, "b.py"), "f(3)\n");
    const after = await search("f($N)");
    expect(after.cost).toEqual({ parsed: 1, reused: 1 });
    expect(capturesOf(after)).toEqual({ "a.py": "1", "b.py": "3" });
  });

  it("a large file and a small one are both searched in the search processes, never on the calling thread (parsing would block the host)", async () => {
    const big = Array.from({ length: 30_000 }, (_, i) => `x${i} = f(${i})`).join("\n"); // ~470 KB
    const { search } = await engineWith({ "big.py": `${big}\n`, "small.py": "f(1)\n" });
    const large = await search("f($N)", "big.py");
    expect(large.ranOn).toEqual(["search processes"]);
    expect(large.structured.total).toBe(30_000);
    const small = await search("f($N)", "small.py");
    expect(small.ranOn).toEqual(["search processes"]);
    // The process that parsed it keeps its tree.
    expect((await search("f($N)", "big.py")).cost).toEqual({ parsed: 0, reused: 1 });
  });

  it("two searches at once over the same files each get their own, complete answer", async () => {
    const { search } = await engineWith(manyFiles());
    const alone = [await search("legacy_call($N)"), await search("$F($N)")];
    const together = await Promise.all([
      search("legacy_call($N)"),
      search("$F($N)"),
      search("legacy_call($N)"),
    ]);
    expect(together.map((r) => r.structured)).toEqual([
      alone[0]!.structured,
      alone[1]!.structured,
      alone[0]!.structured,
    ]);
    expect(together.map((r) => r.cost.parsed + r.cost.reused)).toEqual([50, 150, 50]);
  });

  it("treeCacheMB 0 keeps none; a budget that is not a number of megabytes is refused at createRun", async () => {
    const { search } = await engineWith(manyFiles(), 0);
    await search("legacy_call($N)");
    expect((await search("legacy_call($N)")).cost).toEqual({ parsed: 50, reused: 0 });
    const workdir = await workdirWith({});
    await expect(createRun({ workdir, ast: { treeCacheMB: -1 } })).rejects.toThrow(
      /ast\.treeCacheMB must be a number of megabytes ≥ 0, got -1/,
    );
  });
});

describe("the tree cache's budget", () => {
  const text = (n: number, c: string) => `${c.repeat(n - 1)}\n`;
  // 32 bytes per character: a budget of 3,200 bytes holds 100 characters.
  it("keeps what fits; a search larger than the budget keeps the part it fitted and reuses it next time", () => {
    const cache = new TreeCache(3200);
    const files = ["a", "b", "c", "d"].map((c) => ({ name: `${c}.py`, text: text(40, c) }));
    const pass = (search: number) => files.map((f) => cache.tree("python", f.name, f.text, search).reused);
    expect(pass(1)).toEqual([false, false, false, false]);
    expect(cache.size).toBe(2);
    // Were the newest trees to evict the oldest, each pass would evict what it is about to reach and reuse nothing.
    expect(pass(2)).toEqual([true, true, false, false]);
    expect(pass(3)).toEqual([true, true, false, false]);
  });

  it("evicts the least recently used trees that none of the last four searches used", () => {
    const cache = new TreeCache(3200);
    cache.tree("python", "a.py", text(40, "a"), 1);
    cache.tree("python", "b.py", text(40, "b"), 2);
    for (const s of [3, 4]) expect(cache.tree("python", "b.py", text(40, "b"), s).reused).toBe(true);
    // At search 4, a was used three searches ago: c is parsed but not kept.
    expect(cache.tree("python", "c.py", text(40, "c"), 4).reused).toBe(false);
    expect(cache.tree("python", "c.py", text(40, "c"), 4).reused).toBe(false);
    // At search 5, four searches ago: a gives way to c; b, used at search 4, stays.
    expect(cache.tree("python", "c.py", text(40, "c"), 5).reused).toBe(false);
    expect(cache.tree("python", "c.py", text(40, "c"), 6).reused).toBe(true);
    expect(cache.tree("python", "b.py", text(40, "b"), 6).reused).toBe(true);
    expect(cache.tree("python", "a.py", text(40, "a"), 6).reused).toBe(false);
    expect(cache.size).toBe(2);
  });

  it("forget drops a file's tree and gives its room back", () => {
    const cache = new TreeCache(3200);
    cache.tree("python", "a.py", text(60, "a"), 1);
    expect(cache.tree("python", "b.py", text(60, "b"), 1).reused).toBe(false);
    expect(cache.size).toBe(1);
    cache.forget("python", "a.py");
    cache.tree("python", "b.py", text(60, "b"), 2);
    expect(cache.tree("python", "b.py", text(60, "b"), 3).reused).toBe(true);
  });

  it("a file larger than the whole budget is parsed and never kept", () => {
    const cache = new TreeCache(3200);
    expect(cache.tree("python", "big.py", text(150, "x"), 1).reused).toBe(false);
    expect(cache.size).toBe(0);
    expect(cache.tree("python", "big.py", text(150, "x"), 2).reused).toBe(false);
  });
});
