/**
 * What a confined process of a run sees of the host: its workdir (every .git, node_modules and environment in it
 * read-only, nested ones too), the system and toolchains read-only (/etc's secrets masked), and nothing of another
 * run — a neighbour run's workdir outside /tmp and the home (as harnesses keep checkouts under /srv or /work) was
 * readable, `.env` and all, from a cell, a debuggee and a worker, in one host process and in two. And a repository's
 * links cannot steer a mount: bubblewrap creates and writes nothing outside the workdir.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandBackend, createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { frozenFolders } from "../src/proc/frozen.js";
import { readableToolchains } from "../src/proc/toolchains.js";
import {
  call,
  HOME,
  outsideCheckout,
  PY_ATTEMPT,
  suiteWorkdir,
  textOf,
  track,
  workdirWith,
} from "./helpers.js";

const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`isolation tests need bubblewrap: ${bwrap.why}`);

const label = "try what this sandbox lets the code see";
const canary = `API_SECRET=canary-${randomUUID().slice(0, 12)}`;

/** Python that tries to list and read run A's workdir, one line per try. */
function probeOf(other: string): string {
  return `import os
${PY_ATTEMPT}attempt("list", lambda: os.listdir(${JSON.stringify(other)}))
attempt("read", lambda: open(${JSON.stringify(path.join(other, ".env"))}).read())
attempt("parent", lambda: os.listdir(${JSON.stringify(path.dirname(other))}))
`;
}

function expectUnseen(text: string, what: string): void {
  expect(text, what).toMatch(/^list refused/m);
  expect(text, what).toMatch(/^read refused/m);
  expect(text, what).toMatch(/^parent refused/m);
  expect(text, what).not.toContain(canary.slice("API_SECRET=".length));
}

describe.skipIf(!bwrap.ok)("isolation: a run sees its own workdir, not a neighbour's", () => {
  let a: string;
  let b: string;
  let runA: Run;
  let runB: Run;
  let removeB = async () => {};
  beforeAll(async () => {
    a = outsideCheckout("runbound-tenant-");
    writeFileSync(path.join(a, ".env"), `${canary}\n`);
    writeFileSync(path.join(a, "app.py"), "print('a')\n");
    ({ dir: b, remove: removeB } = await suiteWorkdir({ "probe.py": probeOf(a), "pyproject.toml": "" }));
    // Run A exists and has started its own confined processes.
    runA = await createRun({ workdir: a, approver: "always", lsp: false });
    await call(await runA.link({ surface: "full" }), "eval", { code: "print(1)", description: label });
    runB = await createRun({
      workdir: b,
      conversationId: "neighbour",
      approver: "always",
      lsp: false,
      vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; python3 probe.py"]) },
    });
  });
  afterAll(async () => {
    await Promise.all([runA.dispose(), runB.dispose()]);
    await removeB();
    rmSync(a, { recursive: true, force: true });
  });

  it("the same process: B's cell, debuggee and worker can neither list nor read A's workdir", async () => {
    const client = await runB.link({ surface: "full" });
    expectUnseen(textOf(await call(client, "eval", { code: probeOf(a), description: label })), "cell");
    await call(client, "debug", { operation: "launch", program: "probe.py" });
    expectUnseen(textOf(await call(client, "debug", { operation: "output" })), "debuggee");
    await call(client, "vibe_spawn", { brief: "probe", label: "probe" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
    expectUnseen((waited.structuredContent as { worker: { result: string } }).worker.result, "worker");
  });

  it("another process: a run there cannot list or read A's workdir either", async () => {
    const script = `
      import { createRun } from ${JSON.stringify(path.resolve(import.meta.dirname, "../src/index.js"))};
      const run = await createRun({ workdir: ${JSON.stringify(b)}, approver: "always", lsp: false });
      const client = await run.link({ surface: "full" });
      const r = await client.callTool({ name: "eval", arguments: { code: ${JSON.stringify(probeOf(a))}, description: "probe the neighbour run's workdir from here" } });
      console.log(JSON.stringify(r.content[0].text));
      await run.dispose();
    `;
    const ran = spawnSync(process.execPath, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 120_000,
      cwd: path.resolve(import.meta.dirname, ".."),
    });
    expect(ran.status, ran.stderr).toBe(0);
    const lines = ran.stdout.trim().split("\n");
    expectUnseen(JSON.parse(lines[lines.length - 1]!) as string, "a cell of another process's run");
  });

  it("B's language servers: a file of B's importing A's workdir by its path learns nothing of it", async () => {
    const token = canary.slice("API_SECRET=".length);
    writeFileSync(path.join(a, "secret.ts"), `export const TOKEN = "${token}";\n`);
    writeFileSync(path.join(b, "tsconfig.json"), "{}");
    writeFileSync(path.join(b, "b.ts"), `import { TOKEN } from "${a}/secret";\nexport const t = TOKEN;\n`);
    const servers = track(await createRun({ workdir: b, kernels: false }));
    const plan = await servers.link({ surface: "plan" });
    const hover = textOf(await call(plan, "lsp", { action: "hover", file: "b.ts", line: 2, symbol: "t" }));
    const diagnostics = textOf(await call(plan, "lsp", { action: "diagnostics", file: "b.ts" }));
    expect(hover).not.toContain(token);
    expect(diagnostics).toMatch(/Cannot find module/);
    expect(diagnostics).not.toContain(token);
  });

  it("B's cell sees the system and its own workdir, and not /srv, /opt, /mnt, /home or another run's scratch", async () => {
    const text = textOf(
      await call(await runB.link({ surface: "full" }), "eval", {
        code: [
          "import os",
          "print(sorted(n for n in os.listdir('/') if n in ('srv', 'opt', 'mnt', 'media', 'home', 'data', 'work')))",
          "tmp = os.path.dirname(os.environ['TMPDIR'])",
          "print(sorted(n for n in os.listdir(tmp) if n.startswith('runbound-place-')), len([n for n in os.listdir(tmp) if n.startswith('runbound-jupyter-')]))",
          "print(os.path.exists('probe.py'), os.path.exists('/usr/bin/env'))",
        ].join("\n"),
        description: label,
      }),
    );
    const [top, tmp, own] = text.split("\n");
    expect(top).not.toMatch(/srv|opt|mnt|media|home|data/);
    // Its own scratch folder in its /tmp, and of the Jupyter servers' folders (A's and B's, at least, on the host)
    // its own server's only.
    expect(
      readdirSync(tmpdir()).filter((n) => n.startsWith("runbound-jupyter-")).length,
    ).toBeGreaterThanOrEqual(2);
    expect(tmp).toBe(`['${path.basename(runB.processes.confinedPlace.scratch!)}'] 1`);
    expect(own).toBe("True True");
  });
});

describe("isolation: what a sandbox's mounts are made of", () => {
  it("the walk for folders to freeze is bounded by folders and by time, and says when it stopped short", async () => {
    const files: Record<string, string> = { "a/.git/HEAD": "ref\n", "env/pyvenv.cfg": "" };
    for (let i = 0; i < 30; i++) files[`many/d${i}/x.txt`] = "";
    const dir = await workdirWith(files);
    const whole = frozenFolders(dir);
    expect(whole.truncated).toBe(false);
    expect([...whole.paths].sort()).toEqual([path.join(dir, "a/.git"), path.join(dir, "env")]);
    expect(frozenFolders(dir, { folders: 5, ms: 10_000 }).truncated).toBe(true);
    expect(frozenFolders(dir, { folders: 20_000, ms: 0 }).truncated).toBe(true);
  });

  it("a PATH entry's installation, never a whole top-level folder (/opt/bin is itself, not all of /opt)", () => {
    const saved = process.env.PATH;
    const opt = mkdtempSync("/opt/runbound-toolcache-");
    const made = [opt];
    try {
      mkdirSync(path.join(opt, "node", "22", "bin"), { recursive: true });
      mkdirSync(path.join(opt, "bin"));
      process.env.PATH = `${path.join(opt, "node", "22", "bin")}:${path.join(opt, "bin")}:/opt/bin:${saved}`;
      const madeBin = !existsSync("/opt/bin");
      mkdirSync("/opt/bin", { recursive: true });
      if (madeBin) made.push("/opt/bin");
      const shown = readableToolchains(HOME.home);
      // An installation's folder: its lib and share with its bin.
      expect(shown).toContain(path.join(opt, "node", "22"));
      expect(shown).toContain(opt);
      // A bin at the top stands for itself: all of /opt would show every checkout kept there.
      expect(shown).toContain("/opt/bin");
      expect(shown).not.toContain("/opt");
    } finally {
      process.env.PATH = saved;
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!bwrap.ok)(
  "isolation: the workdir's repositories and installs, and the host's secrets",
  () => {
    it("nested .git/hooks, a submodule's .git file, nested node_modules/.bin and an environment by another name are read-only to a cell and a worker", async () => {
      const workdir = await workdirWith({
        "vendor/lib/.git/hooks/README": "hooks\n",
        "packages/app/node_modules/.bin/README": "bin\n",
        "sub/.git": "gitdir: ../.git/modules/sub\n",
        "deep/a/b/c/d/.git/config": "[core]\n",
        "tools/env/pyvenv.cfg": "home = /usr/bin\n",
        "tools/env/bin/activate": "# an environment by another name\n",
        "pyproject.toml": "",
      });
      const tries = `import os
${PY_ATTEMPT}attempt("vendor-hook", lambda: open("vendor/lib/.git/hooks/pre-commit", "w").write("x"))
attempt("npm-bin", lambda: open("packages/app/node_modules/.bin/eslint", "w").write("x"))
attempt("submodule", lambda: open("sub/.git", "w").write("gitdir: /tmp/evil"))
attempt("deep", lambda: open("deep/a/b/c/d/.git/config", "a").write("[core]\\nhooksPath=/tmp\\n"))
attempt("env", lambda: open("tools/env/bin/python", "w").write("#!/bin/sh\\n"))
attempt("source", lambda: open("vendor/lib/ok.txt", "w").write("fine") and "wrote")
`;
      writeFileSync(path.join(workdir, "tries.py"), tries);
      const run = track(
        await createRun({
          workdir,
          approver: "always",
          lsp: false,
          vibe: { fast: commandBackend("sh", ["-c", "cat > /dev/null; python3 tries.py"]) },
        }),
      );
      const client = await run.link({ surface: "full" });
      const cell = textOf(await call(client, "eval", { code: tries, description: label }));
      await call(client, "vibe_spawn", { brief: "try", label: "try" });
      const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
      const worker = (waited.structuredContent as { worker: { result: string } }).worker.result;
      for (const [what, text] of [
        ["cell", cell],
        ["worker", worker],
      ] as const) {
        for (const name of ["vendor-hook", "npm-bin", "submodule", "deep", "env"])
          expect(text, `${what}: ${name}`).toMatch(new RegExp(`^${name} refused`, "m"));
        expect(text, `${what}: source`).toMatch(/^source LEAKED wrote/m);
      }
    });

    it("runbound's home and its Python environment: never writable from a cell, and a harness cannot make them so", async () => {
      const workdir = await workdirWith();
      await expect(createRun({ workdir, sandbox: { writable: [HOME.home] } })).rejects.toThrow(
        /sandbox\.writable names .* runbound's home/,
      );
      await expect(createRun({ workdir, sandbox: { writable: [path.dirname(HOME.home)] } })).rejects.toThrow(
        /is or holds runbound's home/,
      );
      const run = track(await createRun({ workdir, approver: "always", lsp: false }));
      const text = textOf(
        await call(await run.link({ surface: "full" }), "eval", {
          code: `import os, site
${PY_ATTEMPT}attempt("home", lambda: open(${JSON.stringify(path.join(HOME.home, "x.txt"))}, "w").write("x"))
attempt("site", lambda: open(os.path.join(${JSON.stringify(HOME.venv)}, "lib", "x.pth"), "w").write("x"))
`,
          description: label,
        }),
      );
      expect(text).toMatch(/^home refused/m);
      expect(text).toMatch(/^site refused/m);
    });

    it("a confined process is never uid 0, and reads none of /etc that others may not (shadow, gshadow, sudoers)", async () => {
      const run = track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false }));
      const text = textOf(
        await call(await run.link({ surface: "full" }), "eval", {
          code: `import os
${PY_ATTEMPT}print("uid", os.getuid(), os.geteuid())
for f in ["/etc/shadow", "/etc/gshadow", "/etc/sudoers"]:
    if os.path.lexists(f):
        attempt(f, lambda: open(f).read()[:10])
attempt("passwd", lambda: open("/etc/passwd").read()[:4])
`,
          description: label,
        }),
      );
      expect(text).toMatch(/^uid [1-9]\d* [1-9]\d*$/m);
      expect(text).toMatch(/^\/etc\/shadow refused/m);
      expect(text).not.toMatch(/^\/etc\/\w+ LEAKED/m);
      expect(text).toMatch(/^passwd LEAKED root/m);
    });

    it("links the repository committed (.git, .venv, node_modules, a parent folder) make bubblewrap create or write nothing outside the workdir", async () => {
      const outside = mkdtempSync(path.join(tmpdir(), "runbound-outside-"));
      mkdirSync(path.join(outside, "gitdir"));
      mkdirSync(path.join(outside, "vendor", ".git", "hooks"), { recursive: true });
      const workdir = await workdirWith({ "pyproject.toml": "" });
      const depth = workdir.split(path.sep).length - 1;
      const up = Array.from({ length: depth + 1 }, () => "..").join("/");
      symlinkSync(path.join(outside, "gitdir"), path.join(workdir, ".git"));
      // Through bubblewrap's own old root: a relative link that climbs past / during its setup.
      symlinkSync(`${up}/oldroot${outside}/venv`, path.join(workdir, ".venv"));
      symlinkSync(path.join(outside, "missing", "node_modules"), path.join(workdir, "node_modules"));
      symlinkSync(path.join(outside, "vendor"), path.join(workdir, "vendor"));
      symlinkSync(`${up}/oldroot${outside}`, path.join(workdir, "parent"));
      const listing = () => spawnSync("find", [outside], { encoding: "utf8" }).stdout;
      const before = listing();
      try {
        const run = track(await createRun({ workdir, approver: "always", lsp: false }));
        const text = textOf(
          await call(await run.link({ surface: "full" }), "eval", {
            code: `import os
${PY_ATTEMPT}for name in [".git/hooks/x", ".venv/x", "node_modules/x", "vendor/.git/hooks/x", "parent/x"]:
    attempt(name, lambda: open(name, "w").write("x"))
attempt("inside", lambda: open("inside.txt", "w").write("x") and "wrote")
`,
            description: label,
          }),
        );
        expect(text).toMatch(/^inside LEAKED wrote/m);
        expect(text).not.toMatch(/^(\.git|\.venv|node_modules|vendor|parent)\S* LEAKED/m);
        expect(listing()).toBe(before);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  },
);
