/**
 * The confined place, tried as an attacker would: a cell, a debuggee and a command worker each try to read a
 * canary in the user's home, write outside the workdir, rewrite the repository's git hooks and find the host's
 * sockets; with the network off, a cell tries a loopback server; a fork bomb and a memory bomb meet the limits while
 * the run keeps answering. Each attack works on the host (`confine: "off"`), so each test can fail.
 */
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doctorRows } from "../src/cli/doctor.js";
import { commandBackend, createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { onPath } from "../src/setup/components.mjs";
import { npmBin } from "../src/setup/npm.js";
import { call, FORK_BOMB, HOME, PY_ATTEMPT, suiteWorkdir, textOf, track, workdirWith } from "./helpers.js";

const label = "try what the sandbox lets this code reach";
const token = randomUUID().slice(0, 8);
const canary = path.join(homedir(), `.runbound-canary-${token}`);
const outsideHome = path.join(homedir(), `runbound-written-${token}`);
const outsideTmp = path.join(tmpdir(), `runbound-written-${token}`);

/** A Python program that tries every attack and prints one line per try. */
const ATTACKS = `import os
${PY_ATTEMPT}attempt("canary", lambda: open(${JSON.stringify(canary)}).read().strip())
attempt("write-home", lambda: open(${JSON.stringify(outsideHome)}, "w").write("x"))
attempt("write-tmp", lambda: open(${JSON.stringify(outsideTmp)}, "w").write("x"))
attempt("write-etc", lambda: open("/etc/runbound-${token}", "w").write("x"))
attempt("git-hook", lambda: open(".git/hooks/pre-commit", "w").write("#!/bin/sh\\necho owned\\n"))
attempt("workdir", lambda: open("inside.txt", "w").write("fine") and "wrote inside")
attempt("run-sockets", lambda: os.listdir("/run") or (_ for _ in ()).throw(OSError("empty")))
`;

function expectConfined(text: string, what: string): void {
  for (const name of ["canary", "write-etc", "git-hook", "run-sockets"])
    expect(text, `${what}: ${name}`).toMatch(new RegExp(`^${name} refused`, "m"));
  // The home and /tmp inside are the sandbox's own, empty: a write there succeeds but never reaches the host's.
  expect(existsSync(outsideTmp), `${what}: host /tmp`).toBe(false);
  expect(existsSync(outsideHome), `${what}: host home`).toBe(false);
  expect(text, `${what}: workdir`).toMatch(/^workdir LEAKED wrote inside/m);
  expect(text).not.toContain("SECRET-CANARY");
}

const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`confinement tests need bubblewrap: ${bwrap.why}`);

describe.skipIf(!bwrap.ok)("confined: a cell, a debuggee and a worker reach only the workdir", () => {
  let run: Run;
  let workdir: string;
  let remove = async () => {};
  beforeAll(async () => {
    writeFileSync(canary, "SECRET-CANARY\n");
    ({ dir: workdir, remove } = await suiteWorkdir({
      "attack.py": ATTACKS,
      "pyproject.toml": "",
      ".git/hooks/README": "hooks\n",
    }));
    run = await createRun({
      workdir,
      conversationId: "attacks",
      approver: "always",
      lsp: false,
      vibe: { fast: commandBackend("sh", ["-c", `cat > /dev/null; python3 attack.py`]) },
    });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
    for (const file of [canary, outsideHome, outsideTmp]) rmSync(file, { force: true });
  });

  it("status says where: confined by bubblewrap, with the policy and the limits", () => {
    expect(run.processes.confinedPlace.description).toMatch(
      /^confined \(bubblewrap [\d.]+(, without 0\.12\.0's fix for CVE-2026-87766 — runbound mounts no path of the workdir that is or passes through a link)?\): the workdir writable but its \.git, node_modules and environments, the system, toolchains and runbound's home read-only, nothing else of the host, a loopback of its own, network: HTTP and HTTPS to any public address through runbound's proxy; [\d,]+ MB and 1024 processes/,
    );
    expect(run.unconfined).toBeUndefined();
  });

  it("the place's line and doctor say which bubblewrap runs and whether it has 0.12.0's mount-point fix", () => {
    const probe = probeBubblewrap();
    if (!probe.ok) throw new Error(probe.why);
    const fix =
      "without 0.12.0's fix for CVE-2026-87766 — runbound mounts no path of the workdir that is or passes through a link";
    const line = run.processes.confinedPlace.description;
    const row = doctorRows(workdir, HOME.home).find((r) => r.name === "bubblewrap");
    expect(row?.found?.version).toBe(probe.linkFix ? probe.version : `${probe.version}, ${fix}`);
    if (probe.linkFix) expect(line).not.toContain(fix);
    else expect(line).toContain(`(bubblewrap ${probe.version}, ${fix})`);
  });

  it("a Python cell: no canary, no write outside the workdir or into .git, no host sockets", async () => {
    const cell = await call(await run.link({ surface: "full" }), "eval", {
      code: `exec(open("attack.py").read())`,
      description: label,
    });
    expectConfined(textOf(cell), "cell");
    expect(readFileSync(path.join(workdir, ".git/hooks/README"), "utf8")).toBe("hooks\n");
    expect(existsSync(path.join(workdir, ".git/hooks/pre-commit"))).toBe(false);
  });

  it("a project environment that is a link: where it points is read-only inside the workdir, and a link out still starts kernels", async () => {
    const inside = await workdirWith({ "envs/real/marker": "env\n" });
    symlinkSync("envs/real", path.join(inside, ".venv"));
    const outside = await workdirWith({});
    symlinkSync("/usr", path.join(outside, ".venv"));
    for (const dir of [inside, outside]) {
      const confined = track(await createRun({ workdir: dir, approver: "always", lsp: false }));
      const text = textOf(
        await call(await confined.link({ surface: "full" }), "eval", {
          code: [
            "import os",
            "def attempt(p):",
            "    try:",
            "        open(p, 'w').write('x')",
            "        return 'wrote'",
            "    except OSError as e:",
            "        return type(e).__name__",
            "print(attempt('envs/real/new') if os.path.isdir('envs') else '-', attempt('other.txt'))",
          ].join("\n"),
          description: label,
        }),
      );
      expect(text, dir).toBe(dir === inside ? "OSError wrote" : "- wrote");
    }
  });

  it("the same cell on the host (confine off) leaks: the refusals above are the sandbox's", async () => {
    const host = track(await createRun({ workdir, approver: "always", lsp: false, confine: "off" }));
    expect(host.processes.confinedPlace.kind).toBe("host");
    const cell = await call(await host.link({ surface: "full" }), "eval", {
      code: `exec(open("attack.py").read())`,
      description: label,
    });
    expect(textOf(cell)).toMatch(/^canary LEAKED SECRET-CANARY/m);
    expect(textOf(cell)).toMatch(/^write-home LEAKED/m);
    for (const file of [outsideHome, outsideTmp, path.join(workdir, ".git/hooks/pre-commit")])
      rmSync(file, { force: true });
  });

  it("a debuggee under debugpy", async () => {
    const client = await run.link({ surface: "full" });
    const launched = await call(client, "debug", { operation: "launch", program: "attack.py" });
    expect(textOf(launched)).toMatch(/ended|exited|terminated/i);
    expectConfined(textOf(await call(client, "debug", { operation: "output" })), "debuggee");
  });

  it("debug adapters says where adapters and programs run", async () => {
    const adapters = textOf(
      await call(await run.link({ surface: "full" }), "debug", { operation: "adapters" }),
    );
    expect(adapters).toMatch(/\nAdapters and the programs they debug run confined \(bubblewrap [\d.]+[,)]/);
  });

  it("a command worker", async () => {
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "attack", label: "attack" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
    const result = (waited.structuredContent as { worker: { result: string } }).worker.result;
    expectConfined(result, "worker");
  });
});

describe.skipIf(!bwrap.ok)("confined: a trusted workspace's own language server", () => {
  it("runs confined (it runs the project's code): it cannot read the home; runbound's own run confined too", async () => {
    writeFileSync(canary, "SECRET-CANARY\n");
    const workdir = await workdirWith({
      "pyproject.toml": "",
      "app.py": "def greet(name):\n    return name\n",
    });
    const saw = path.join(workdir, "server-saw.txt");
    const bin = path.join(workdir, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, "pyright-langserver"),
      `#!/bin/sh\n(cat "${canary}" 2>/dev/null || echo refused) > "${saw}"\nexec "${process.execPath}" "${npmBin("pyright", "pyright-langserver")}" "$@"\n`,
    );
    chmodSync(path.join(bin, "pyright-langserver"), 0o755);
    try {
      const run = track(await createRun({ workdir, kernels: false, trust: "workspace" }));
      const plan = await run.link({ surface: "plan" });
      const hover = await call(plan, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" });
      expect(textOf(hover)).toMatch(/def greet\(name/);
      expect(readFileSync(saw, "utf8")).toBe("refused\n");
      // Its watchdog looks for runbound's process every 3 s: given a pid it cannot see, it exited.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const status = textOf(await call(plan, "lsp", { action: "status" }));
      expect(status).toMatch(/pyright @ \.: ready, pid \d+, confined \(it runs the project's code\)/);
      expect(status).toMatch(/^Servers run confined \(bubblewrap/m);
      const untrusted = track(await createRun({ workdir, kernels: false }));
      const own = await untrusted.link({ surface: "plan" });
      await call(own, "lsp", { action: "hover", file: "app.py", line: 1, symbol: "greet" });
      expect(textOf(await call(own, "lsp", { action: "status" }))).toMatch(
        /pyright @ \.: ready, pid \d+, confined$/m,
      );
    } finally {
      rmSync(canary, { force: true });
    }
  });
});

describe.skipIf(!bwrap.ok)("confined: network off and the limits", () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => server.close());

  const connect = () => `import socket
try:
    print("connected:", socket.create_connection(("127.0.0.1", ${port}), timeout=5).recv(64).decode().strip())
except OSError as e:
    print("refused:", type(e).__name__)`;

  it("network off (and on): a Python and a JavaScript cell cannot reach a loopback server the host can", async () => {
    const workdir = await workdirWith();
    const run = track(
      await createRun({ workdir, approver: "always", lsp: false, sandbox: { network: "off" } }),
    );
    expect(run.processes.confinedPlace.description).toContain("network off");
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "eval", { code: connect(), description: label }))).toBe(
      "refused: ConnectionRefusedError",
    );
    const js = await call(client, "eval", {
      code: `const net = await import("node:net");
await new Promise((done) => net.connect(${port}, "127.0.0.1").on("connect", () => done(console.log("connected"))).on("error", (e) => done(console.log("refused:", e.code))))`,
      language: "javascript",
      description: label,
    });
    expect(textOf(js)).toBe("refused: ECONNREFUSED");
    // With the network on, the sandbox's loopback is its own too; unconfined, the same cell reaches the server: the
    // refusals are the sandbox's.
    const on = track(await createRun({ workdir: await workdirWith(), approver: "always", lsp: false }));
    expect(
      textOf(await call(await on.link({ surface: "full" }), "eval", { code: connect(), description: label })),
    ).toBe("refused: ConnectionRefusedError");
    const host = track(
      await createRun({ workdir: await workdirWith(), approver: "always", lsp: false, confine: "off" }),
    );
    expect(
      textOf(
        await call(await host.link({ surface: "full" }), "eval", { code: connect(), description: label }),
      ),
    ).toBe("connected: hello from the host");
  });

  it("an allow-list: HTTP to a listed host goes through runbound's proxy, an unlisted one is refused, raw sockets reach nothing", async () => {
    const serve = async (word: string) => {
      const server = createHttpServer((_, res) => res.end(`hello ${word}`));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { server, port: (server.address() as { port: number }).port };
    };
    const [listed, unlisted] = [await serve("listed"), await serve("unlisted")];
    try {
      const run = track(
        await createRun({
          workdir: await workdirWith(),
          approver: "always",
          lsp: false,
          sandbox: { network: [`127.0.0.1:${listed.port}`] },
        }),
      );
      expect(run.processes.confinedPlace.description).toContain(
        `a loopback of its own, network: HTTP and HTTPS to 127.0.0.1:${listed.port} through runbound's proxy`,
      );
      const cell = await call(await run.link({ surface: "full" }), "eval", {
        code: `import socket, urllib.request, urllib.error
for port in (${listed.port}, ${unlisted.port}):
    try:
        print(urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode())
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode().strip())
try:
    socket.create_connection(("127.0.0.1", ${listed.port}), timeout=3)
    print("raw: connected")
except OSError as e:
    print("raw:", type(e).__name__)`,
        description: label,
      });
      expect(textOf(cell)).toBe(
        `hello listed\n403 runbound: 127.0.0.1:${unlisted.port} is not on this run's allow-list (createRun sandbox.network); the harness adds hosts there\nraw: ConnectionRefusedError`,
      );
    } finally {
      listed.server.close();
      unlisted.server.close();
    }
  });

  it("a limit that is not a whole number > 0 is refused at createRun, naming it", async () => {
    const workdir = await workdirWith();
    await expect(createRun({ workdir, lsp: false, sandbox: { memoryMB: -1 } })).rejects.toThrow(
      "createRun: sandbox.memoryMB must be a whole number > 0, got -1; leave it out for the default",
    );
    await expect(createRun({ workdir, lsp: false, sandbox: { processes: 0.5 } })).rejects.toThrow(
      /^createRun: sandbox\.processes must be a whole number > 0, got 0\.5/,
    );
  });

  it("a fork bomb stops at the process limit, a memory bomb at the memory limit; the run keeps answering", async () => {
    const workdir = await workdirWith({ "notes.txt": "still here\n" });
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: false,
        sandbox: { processes: 200, memoryMB: 1024 },
      }),
    );
    const client = await run.link({ surface: "full" });
    const bomb = await call(client, "eval", {
      code: FORK_BOMB,
      description: label,
    });
    const forked = /refused after (\d+) BlockingIOError/.exec(textOf(bomb));
    expect(forked, textOf(bomb)).not.toBeNull();
    expect(Number(forked![1])).toBeLessThan(200);
    const memory = await call(client, "eval", {
      code: "x = bytearray(2 * 1024**3)\nprint('allocated', len(x))",
      description: label,
    });
    expect(textOf(memory)).toMatch(/MemoryError|died|ended/);
    expect(textOf(memory)).not.toMatch(/^allocated \d+/m);
    expect(textOf(await call(client, "read", { path: "notes.txt" }))).toContain("still here");
    expect(textOf(await call(client, "eval", { code: "1 + 1", description: label }))).toBe("2");
    // Dispose leaves nothing: no process of the run, no control group, no scratch folder.
    const scratch = run.processes.confinedPlace.scratch!;
    const groups = () =>
      ["pids", "memory"].flatMap((c) =>
        existsSync(`/sys/fs/cgroup/${c}`)
          ? readdirSync(`/sys/fs/cgroup/${c}`).filter((n) => n.startsWith(`runbound-${process.pid}-`))
          : [],
      );
    expect(groups().length).toBeGreaterThan(0);
    await run.dispose();
    expect(run.processes.running()).toEqual([]);
    expect(existsSync(scratch)).toBe(false);
    expect(groups()).toEqual([]);
  });
});

describe("where bubblewrap is missing or refused", () => {
  const path0 = process.env.PATH;
  afterAll(() => {
    process.env.PATH = path0;
  });
  /** A PATH holding only `files` (executables): no bwrap unless given. */
  const pathWith = async (files: Record<string, string>) => {
    const dir = await workdirWith(files);
    for (const name of Object.keys(files)) chmodSync(path.join(dir, name), 0o755);
    process.env.PATH = dir;
  };

  it("required: createRun fails, saying why and what to do; nothing starts", async () => {
    await pathWith({});
    const workdir = await workdirWith();
    await expect(createRun({ workdir, lsp: false, confine: "required" })).rejects.toThrow(
      /^createRun: confine is "required", but bubblewrap \(bwrap\) is not installed\. To fix: `npx runbound setup --only bubblewrap` installs Debian's bubblewrap when run as root; else `sudo apt-get install bubblewrap`\.$/,
    );
    process.env.PATH = path0;
  });

  it("a bwrap that cannot make a sandbox is named with its own words", async () => {
    await pathWith({
      bwrap: "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
      unshare: `#!/bin/sh\nexec ${onPath("unshare")} "$@"\n`,
      nsenter: `#!/bin/sh\nexec ${onPath("nsenter")} "$@"\n`,
    });
    const workdir = await workdirWith();
    const error = await createRun({ workdir, lsp: false, confine: "required" }).catch((e: Error) => e);
    process.env.PATH = path0;
    expect(String(error)).toMatch(
      /bubblewrap is installed but cannot make a sandbox here \(bwrap: No permissions to create new namespace\)\. To fix: allow unprivileged user namespaces/,
    );
  });

  it("without unshare and nsenter, which make a run's network namespace, confinement is refused, naming util-linux", async () => {
    await pathWith({ bwrap: "#!/bin/sh\nexit 0\n" });
    const workdir = await workdirWith();
    const error = await createRun({ workdir, lsp: false, confine: "required" }).catch((e: Error) => e);
    process.env.PATH = path0;
    expect(String(error)).toBe(
      'Error: createRun: confine is "required", but unshare and nsenter (util-linux), which give a run its network namespace, are not on PATH. To fix: install util-linux.',
    );
  });

  it("preferred (the default): runs on the host, said once in the first answer of each tool that runs code", async () => {
    await pathWith({});
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "c", approver: "always", lsp: false }));
    process.env.PATH = path0;
    expect(run.processes.confinedPlace.kind).toBe("host");
    const client = await run.link({ surface: "full" });
    const first = textOf(await call(client, "eval", { code: "1 + 1", description: label }));
    expect(first).toBe(
      `Not confined: bubblewrap (bwrap) is not installed, so this runs on the host as the harness's user (confine: "preferred"). To confine: \`npx runbound setup --only bubblewrap\` installs Debian's bubblewrap when run as root; else \`sudo apt-get install bubblewrap\`.\n\n2`,
    );
    expect(textOf(await call(client, "eval", { code: "2 + 2", description: label }))).toBe("4");
    const adapters = textOf(await call(client, "debug", { operation: "status" }));
    expect(adapters).toMatch(/^Not confined: /);
    // A tool that runs no code says nothing of it.
    expect(textOf(await call(client, "read", { path: "." }))).not.toMatch(/Not confined/);
  });
});
