/**
 * Faults real servers do not produce on demand — a hang, a crash, a late or missing publish, publishes without a
 * version — played by the scripted server in test/fixtures/fake-lsp.mjs, which logs what it receives.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import type { ServerSpec } from "../src/lsp/catalog.js";
import { isAlive } from "../src/proc/tree.js";
import { call, fakeServer, textOf, track, workdirWith } from "./helpers.js";

async function fakeRun(
  mode: string,
  timeouts = { requestMs: 300, diagnosticsMs: 600, startMs: 10_000 },
  extra: Partial<ServerSpec> = {},
) {
  const workdir = await workdirWith({ "fake.toml": "", "a.fake": "one\ntwo\n" });
  const log = path.join(workdir, "server.log");
  const fake: ServerSpec = { ...fakeServer(mode, [`--log=${log}`]), ...extra };
  const run = track(await createRun({ workdir, approver: "always", lsp: { servers: [fake], timeouts } }));
  const client = await run.link({ surface: "full" });
  const received = async () =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method: string; pid?: number });
  return {
    run,
    client,
    received,
    lsp: (args: Record<string, unknown>) => call(client, "lsp", { file: "a.fake", ...args }),
  };
}

const at = { line: 1, symbol: "one" };

describe("lsp faults (scripted server)", () => {
  it("a hang times out, is cancelled on the server, and three in a row restart it with the document re-opened", async () => {
    const { lsp, received } = await fakeRun("hang");
    for (let i = 0; i < 3; i++) {
      const result = await lsp({ action: "definition", ...at });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        "fake did not answer textDocument/definition within 300 ms; the request was cancelled on the server. After 3 timeouts in a row the server is restarted. Try again, or `lsp reload` with this file.",
      );
    }
    await expect
      .poll(async () => (await received()).filter((m) => m.method === "$/cancelRequest").length)
      .toBe(3);
    const hover = await lsp({ action: "hover", ...at });
    expect(textOf(hover)).toContain("fake hover");
    const log = await received();
    expect(log.filter((m) => m.method === "started")).toHaveLength(2);
    expect(log.filter((m) => m.method === "didOpen")).toHaveLength(2);
  });

  it("a server that dies as it starts is said once: what it printed, what happens next, no advice twice", async () => {
    const { lsp } = await fakeRun("crash-at-start");
    const text = textOf(await lsp({ action: "definition", ...at }));
    expect(text).toMatch(
      /^The Fake server for \. did not start: The Fake server crashed while answering initialize /,
    );
    expect(text).toContain("Cannot find module 'typescript'");
    // Said once, and no sentence ends twice (it read "…shows its state.. `lsp status` shows its last output.").
    expect(text.match(/`lsp status`/g)).toHaveLength(1);
    expect(text).not.toContain("..");
  });

  it("a crash settles the request at once, status says why, and the server restarts after its backoff", async () => {
    const { lsp, received, run } = await fakeRun("crash");
    const result = await lsp({ action: "definition", ...at });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^The Fake server crashed while answering textDocument\/definition \(the (connection closed|process exited).*\)\. It is restarted on the next call/,
    );
    const status = textOf(await lsp({ action: "status", file: undefined }));
    expect(status).toMatch(
      /fake @ \.: crashed, pid \d+, 1 restart, last error: the (connection closed|process exited)/,
    );
    // The process runbound started (the server's own pid is another inside its sandbox's PID namespace).
    const pid = Number(/crashed, pid (\d+)/.exec(status)![1]);
    await expect.poll(() => isAlive(pid)).toBe(false);
    // Within the backoff the call says when the restart comes, instead of hammering a crashing server.
    expect(textOf(await lsp({ action: "hover", ...at }))).toMatch(
      /crashed .*; it restarts in 1 s\. Call again then, or use `lsp status`\./,
    );
    await new Promise((r) => setTimeout(r, 600));
    expect(textOf(await lsp({ action: "hover", ...at }))).toContain("fake hover");
    expect((await received()).filter((m) => m.method === "didOpen")).toHaveLength(2);
    expect(run.processes.running().length).toBe(1);
  });

  it("a publish later than the deadline is stale, never a clean bill", async () => {
    const { lsp } = await fakeRun("slow-publish");
    const result = await lsp({ action: "diagnostics" });
    expect(textOf(result)).toBe(
      "Diagnostics (fake, STALE: fake did not publish diagnostics for this version within 600 ms; may be out of date — not a clean bill): none received in time\nIncomplete: the diagnostics are stale (fake did not publish diagnostics for this version within 600 ms), not a clean bill.",
    );
    expect(result.structuredContent).toMatchObject({ freshness: "stale", complete: false });
  });

  it("after a write, a server that never publishes yields a stale note, not 'nothing new'", async () => {
    const { client } = await fakeRun("no-publish");
    const result = await call(client, "write", { path: "a.fake", content: "three\n" });
    expect(textOf(result)).toContain(
      "(diagnostics for a.fake are stale: fake did not publish diagnostics for this version within 600 ms; they are not shown as clean)",
    );
    expect(result.structuredContent).toMatchObject({
      diagnostics: { files: [{ path: "a.fake", freshness: "stale", new: [] }] },
    });
  });

  it("after a write of 8 files to a server that never publishes, 5 stale notes are listed and the rest counted", async () => {
    const { run } = await fakeRun("no-publish");
    const written: string[] = [];
    for (let i = 1; i <= 8; i++) {
      await writeFile(path.join(run.workdir, `b${i}.fake`), `file ${i}\n`);
      written.push(`b${i}.fake`);
    }
    const answer = await run.resource("lsp")!.afterWrite(written, new AbortController().signal);
    const notes = answer!.text.split("\n").filter((l) => l.startsWith("("));
    expect(notes).toHaveLength(6);
    expect(notes[0]).toMatch(/^\(diagnostics for b1\.fake are stale: /);
    expect(notes[5]).toBe("(+3 more files whose diagnostics are not fresh either)");
    expect(answer!.value.files).toHaveLength(8);
  });

  it("publishes without a version are taken once the server has been quiet", async () => {
    const { lsp } = await fakeRun("unversioned");
    const result = await lsp({ action: "diagnostics" });
    expect(textOf(result)).toBe("Diagnostics (fake, fresh): 1 error\n  1  error: fake problem [fake F1]");
  });

  it("an error answer quotes what the server reported before it (its errors and warnings, paths relative), and status its newest report", async () => {
    const { lsp } = await fakeRun("refuse");
    const result = await lsp({ action: "definition", ...at });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Fake answered textDocument/definition with an error: no views. That is the server\'s own answer, not a fault of the arguments. Fake reported before: "failed to load mod.fake: tool missing". Most often its project does not load here: `lsp diagnostics` with file "*" shows the build\'s errors, `lsp status` what the server last reported.',
    );
    expect(textOf(await lsp({ action: "status" }))).toMatch(
      /^ {2}fake @ \.: ready, pid \d+, last reported: "failed to load mod\.fake: tool missing", confined$/m,
    );
  });

  it("a definition in a file gone from disk says the file cannot be read now (an empty snippet read as an empty line)", async () => {
    const { lsp } = await fakeRun("gone");
    expect(textOf(await lsp({ action: "definition", ...at }))).toBe(
      "gone.fake:1  (the file cannot be read now)",
    );
  });

  it("dispose ends the server process", async () => {
    const { lsp, run } = await fakeRun("normal");
    await lsp({ action: "hover", ...at });
    const pid = run.processes.running().find((p) => p.label === "fake language server")!.pid;
    expect(await isAlive(pid)).toBe(true);
    await run.dispose();
    expect(await isAlive(pid)).toBe(false);
  });

  it("a server that checks on save: the answer waits for this save's check; one whose check never begins is not fresh", async () => {
    const timeouts = { requestMs: 300, diagnosticsMs: 3000, startMs: 10_000 };
    const checked = await fakeRun("check-on-save", timeouts, { checkOnSaveMs: 1000 });
    const edit = (client: typeof checked.client) =>
      call(client, "edit", { path: "a.fake", old_string: "two", new_string: "three" });
    const withCheck = textOf(await edit(checked.client));
    expect(withCheck).toContain("found by the check");
    expect(withCheck).not.toMatch(/stale|not begun/);
    const unchecked = await fakeRun("normal", timeouts, { checkOnSaveMs: 300 });
    const withoutCheck = textOf(await edit(unchecked.client));
    expect(withoutCheck).toMatch(
      /its check on save had not begun within 300 ms, so the checker's findings may be missing/,
    );
  });

  it("other work the server reports after a save is not its check: the answer waits for the check by its title", async () => {
    const timeouts = { requestMs: 300, diagnosticsMs: 3000, startMs: 10_000 };
    const { client } = await fakeRun("index-then-check", timeouts, {
      checkOnSaveMs: 1000,
      checkTitle: "fake check",
    });
    const text = textOf(
      await call(client, "edit", { path: "a.fake", old_string: "two", new_string: "three" }),
    );
    expect(text).toContain("found by the check");
    expect(text).not.toMatch(/stale|not begun/);
  });

  it("a wait on a quiet server ends on time while the process makes garbage (deadlines a collection cannot drop)", async () => {
    const { run, lsp } = await fakeRun("normal");
    expect(textOf(await lsp({ action: "hover", ...at }))).toContain("fake hover");
    const file = path.join(run.workdir, "a.fake");
    const { client: server } = await run.resource("lsp")!.supervisor.clientFor(file, "a.fake");
    // Measured: with AbortSignal.timeout inside AbortSignal.any, this churn let the timeout be collected and the
    // wait (diagnostics on write with rust-analyzer) never ended.
    // Garbage that lives a little (as a busy host's does), so that full collections run too.
    const kept: number[][] = [];
    const churn = setInterval(() => {
      for (let i = 0; i < 200; i++) kept.push(new Array(1000).fill(i));
      if (kept.length > 4000) kept.length = 0;
    }, 2);
    try {
      for (let i = 0; i < 4; i++) expect(await server.settled(3000, 1200)).toBe(true);
    } finally {
      clearInterval(churn);
    }
  }, 40_000);
});

describe("lsp: why a server cannot serve, and bad input", () => {
  it("a hover asks where the symbol is defined beside it, not after its answer (one wait, not two)", async () => {
    const { lsp, received } = await fakeRun("slow-hover");
    expect(textOf(await lsp({ action: "hover", ...at }))).toBe("fake hover");
    expect((await received()).filter((m) => m.method === "definition")).toEqual([
      { method: "definition", hovering: true },
    ]);
  });

  it("names the missing root marker, the missing binary and how to install it", async () => {
    const workdir = await workdirWith({ "loose.py": "x = 1\n", "proj/fake.toml": "", "proj/b.fake": "b\n" });
    const ghost: ServerSpec = {
      id: "fake",
      name: "Fake",
      languages: { ".fake": "fake" },
      rootMarkers: ["fake.toml"],
      candidates: [{ name: "no-such-language-server", args: [] }],
      install: "apt-get install no-such-language-server",
    };
    const run = track(await createRun({ workdir, lsp: { servers: [ghost] } }));
    const client = await run.link({ surface: "plan" });
    expect(
      textOf(await call(client, "lsp", { action: "hover", file: "loose.py", line: 1, symbol: "x" })),
    ).toBe(
      "Pyright cannot serve loose.py: no root marker (pyproject.toml, pyrightconfig.json, setup.py, setup.cfg, requirements.txt) in its folder or any folder above it inside the workdir. Add one (e.g. pyproject.toml) at the project's root.",
    );
    expect(
      textOf(await call(client, "lsp", { action: "hover", file: "proj/b.fake", line: 1, symbol: "b" })),
    ).toBe(
      "Fake cannot serve proj: its binary (no-such-language-server) was not found in the project, runbound's dependencies, runbound's home or PATH. Fix: apt-get install no-such-language-server.",
    );
    const status = textOf(await call(client, "lsp", { action: "status" }));
    expect(status).toContain(
      "  fake: binary missing (no-such-language-server); fix: apt-get install no-such-language-server",
    );
    expect(status).toContain(
      "  pyright: no root marker (pyproject.toml, pyrightconfig.json, setup.py, setup.cfg, requirements.txt) in the workdir",
    );
  });

  it("refuses a navigation without symbol, symbols without file or query, a file outside the workdir, an unknown extension", async () => {
    const workdir = await workdirWith({ "notes.txt": "hi\n" });
    const run = track(await createRun({ workdir }));
    const client = await run.link({ surface: "plan" });
    const lsp = (args: Record<string, unknown>) => call(client, "lsp", args).then(textOf);
    expect(await lsp({ action: "definition", file: "a.py", line: 3 })).toBe(
      "definition needs `file` and `symbol` (the name as written; with `line` when it occurs more than once in the file — a column is never guessed); missing: `symbol`.",
    );
    expect(await lsp({ action: "code_actions", file: "a.py", symbol: "x" })).toBe(
      "code_actions needs `file`, `line` and `symbol` (the name as written on that line — a column is never guessed); missing: `line`.",
    );
    expect(await lsp({ action: "symbols" })).toBe(
      "symbols needs `file` (its outline) or `query` (a workspace search).",
    );
    expect(await lsp({ action: "diagnostics" })).toBe(
      'diagnostics needs `file`: a file of the project, or "*" for the project-wide check.',
    );
    expect(await lsp({ action: "hover", file: "../x.py", line: 1, symbol: "x" })).toMatch(
      /^`file` "..\/x.py" is outside the workdir/,
    );
    expect(await lsp({ action: "hover", file: "notes.txt", line: 1, symbol: "hi" })).toMatch(
      /^No language server in runbound's catalog handles notes.txt \(by its extension\)\. Handled: \.py /,
    );
    expect(await lsp({ action: "hover", file: "a.py", line: 1, column: 4, symbol: "x" })).toMatch(
      /unknown argument `column`/,
    );
    // A missing file is named as missing, before any server is looked for (it read as a missing root marker).
    expect(await lsp({ action: "diagnostics", file: "nope.py" })).toBe("`file` nope.py does not exist.");
    expect(await lsp({ action: "symbols", file: "nope.py" })).toBe("`file` nope.py does not exist.");
    expect(await lsp({ action: "reload", file: "nope.py" })).toBe("`file` nope.py does not exist.");
  });

  it("reload with a server that never started (its binary missing) says nothing ran, and does not fail", async () => {
    const workdir = await workdirWith({
      "app/pubspec.yaml": "name: app\n",
      "app/lib/a.dart": "int x = 1;\n",
    });
    const run = track(
      await createRun({
        workdir,
        lsp: {
          servers: [
            {
              id: "dart",
              name: "Dart analysis server",
              languages: { ".dart": "dart" },
              rootMarkers: ["pubspec.yaml"],
              candidates: [{ name: "no-such-dart-binary", args: [] }],
              install: "nothing to install: this binary does not exist",
            },
          ],
        },
      }),
    );
    const client = await run.link({ surface: "plan" });
    const lsp = (args: Record<string, unknown>) => call(client, "lsp", args).then(textOf);
    expect(await lsp({ action: "hover", file: "app/lib/a.dart", line: 1, symbol: "x" })).toMatch(
      /cannot serve app: its binary \(no-such-dart-binary\) was not found/,
    );
    // Before: "lsp failed inside runbound: Cannot read properties of undefined (reading 'state')".
    expect(await lsp({ action: "reload" })).toBe("No server was running; nothing to reload.");
  });
});
