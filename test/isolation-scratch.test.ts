/**
 * A run's scratch folder is writable by every confined process of the run. A worker (or a debuggee) that replaces
 * its folders with links — absolute and relative — to the workdir's frozen .git/hooks and to runbound's own Python
 * environment must make no host process write there: the host's shared Jupyter server wrote the run's kernel
 * connection files through such a link, and the next kernel's sandbox bound the link's target writable, so a cell
 * dropped a .pth into runbound's site-packages that the next run's Jupyter server then executed on the host.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandBackend, createRun } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, HOME, PY_ATTEMPT, suiteWorkdir, textOf, track } from "./helpers.js";

const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`isolation tests need bubblewrap: ${bwrap.why}`);

const label = "try writing through the scratch folder links";
const token = randomUUID().slice(0, 8);
const marker = path.join(tmpdir(), `runbound-pth-ran-${token}`);
const pth = `runbound-attack-${token}.pth`;

function sitePackages(): string {
  const lib = path.join(HOME.venv, "lib");
  const version = readdirSync(lib).find((name) => name.startsWith("python3"));
  if (!version) throw new Error(`no python3.* in ${lib}`);
  return path.join(lib, version, "site-packages");
}

/** A worker's shell: the scratch folder's `kernels` (and other names) made links — absolute and relative. */
function linker(target: string, other: string): string {
  return [
    "cat > /dev/null",
    'cd "$TMPDIR"',
    "rm -rf kernels site-packages runtime kernels-rel",
    `ln -s ${JSON.stringify(target)} kernels`,
    `ln -s ${JSON.stringify(other)} site-packages`,
    `ln -sr ${JSON.stringify(target)} runtime`,
    `ln -sr ${JSON.stringify(other)} kernels-rel`,
    "ls -l",
  ].join("; ");
}

/** A cell that tries to plant a .pth where the links lead, by every name a kernel could know them by. */
const PLANT = `import os
${PY_ATTEMPT}marker = ${JSON.stringify(marker)}
line = "import os; open(%r, 'w').write('ran')\\n" % marker
for name in ["kernels", "site-packages", "runtime", "kernels-rel"]:
    attempt("via-" + name, lambda: open(os.path.join(os.environ["TMPDIR"], name, ${JSON.stringify(pth)}), "w").write(line))
import sys
for at in [p for p in sys.path if p.endswith("site-packages") and not p.startswith(sys.prefix)]:
    attempt("site-" + at, lambda: open(os.path.join(at, ${JSON.stringify(pth)}), "w").write(line))
`;

describe.skipIf(!bwrap.ok)("isolation: links in the run's scratch folder", () => {
  let workdir: string;
  let remove = async () => {};
  let hooks: string;
  let site: string;
  let before: { hooks: string[]; site: string[] };
  beforeAll(async () => {
    ({ dir: workdir, remove } = await suiteWorkdir({ "pyproject.toml": "", ".git/hooks/README": "hooks\n" }));
    hooks = path.join(workdir, ".git", "hooks");
    site = sitePackages();
    before = { hooks: readdirSync(hooks), site: readdirSync(site) };
  });
  afterAll(async () => {
    await remove();
    rmSync(marker, { force: true });
    rmSync(path.join(site, pth), { force: true });
    for (const name of readdirSync(site))
      if (/^kernel-.*\.json$/.test(name)) rmSync(path.join(site, name), { force: true });
  });

  /** A run whose worker links the scratch folders to `target` and `other`, then a cell that plants a .pth. */
  async function attack(target: string, other: string): Promise<string> {
    const run = track(
      await createRun({
        workdir,
        conversationId: `scratch-links-${path.basename(target)}`,
        approver: "always",
        lsp: false,
        vibe: { fast: commandBackend("sh", ["-c", linker(target, other)]) },
      }),
    );
    const client = await run.link({ surface: "full" });
    await call(client, "vibe_spawn", { brief: "link the scratch folders", label: "links" });
    const waited = await call(client, "vibe_wait", { worker_id: "w1", timeout_seconds: 60 });
    const listing = (waited.structuredContent as { worker: { result: string } }).worker.result;
    expect(listing).toMatch(/kernels -> /);
    const cell = textOf(await call(client, "eval", { code: PLANT, description: label }));
    await run.dispose();
    return cell;
  }

  it("kernels linked to the workdir's .git/hooks: the host's Jupyter server writes nothing there, nor does a cell", async () => {
    const cell = await attack(hooks, site);
    expect(cell).not.toMatch(/LEAKED/);
    // The run's layer over runbound's environment has it on the path, read-only.
    expect(cell).toContain(`site-${site} refused`);
    expect(readdirSync(hooks), "the workdir's .git/hooks").toEqual(before.hooks);
    expect(readdirSync(site), "runbound's site-packages").toEqual(before.site);
  });

  it("kernels linked to runbound's site-packages: no .pth lands there, and the next run's new Jupyter server runs nothing on the host", async () => {
    const cell = await attack(site, hooks);
    expect(cell).not.toMatch(/LEAKED/);
    expect(readdirSync(site), "runbound's site-packages").toEqual(before.site);
    expect(existsSync(path.join(site, pth))).toBe(false);
    const next = track(await createRun({ workdir, approver: "always", lsp: false }));
    const first = textOf(
      await call(await next.link({ surface: "full" }), "eval", { code: "print(1 + 1)", description: label }),
    );
    expect(first).toBe("2");
    expect(existsSync(marker), "the .pth ran on the host").toBe(false);
  });
});
