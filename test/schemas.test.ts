import { describe, expect, it } from "vitest";
import { commandBackend, createRun, ProgrammaticQuestionPort, SURFACES } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { BUILTIN_TOOLS } from "../src/tools/index.js";
import { track, workdirWith } from "./helpers.js";

// The JSON schemas a client lists are part of the contract the model reads. A change here must be deliberate:
// update with `npm run snapshots` and review the diff. In CI (CI=true) a difference fails the run.
describe("tools/list schemas per surface (snapshots)", () => {
  for (const surface of SURFACES) {
    it(`${surface}: tools/list matches its snapshot (names, descriptions, input and output schemas)`, async () => {
      const workdir = await workdirWith();
      const run = track(
        await createRun({
          workdir,
          conversationId: "c",
          questions: new ProgrammaticQuestionPort(),
          vibe: { fast: commandBackend("true") },
        }),
      );
      const { tools } = await (await run.link({ surface })).listTools();
      await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(`./schemas/${surface}.json`);
    });
  }
});

describe("tool annotations: what each tool does, as hosts read it", () => {
  it("every built-in tool states its effects beside its tier", () => {
    expect(BUILTIN_TOOLS.filter((spec) => !spec.effects).map((spec) => spec.name)).toEqual([]);
  });

  it("the workers' tools are not read-only; eval, debug and lsp are open-world unless the run's network is off", async () => {
    const annotations = async (options: { confine?: "required" | "off"; network?: "off" }) => {
      const run = track(
        await createRun({
          workdir: await workdirWith(),
          conversationId: "c",
          vibe: { fast: commandBackend("true") },
          ...(options.confine ? { confine: options.confine } : {}),
          ...(options.network ? { sandbox: { network: options.network } } : {}),
        }),
      );
      const { tools } = await (await run.link({ surface: "full" })).listTools();
      return Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    };
    const open = await annotations({});
    for (const name of ["vibe_spawn", "vibe_send", "vibe_kill"])
      expect(open[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ["vibe_wait", "vibe_list", "read", "ast_grep", "lsp", "ast_edit"])
      expect(open[name], name).toMatchObject({ readOnlyHint: true });
    for (const name of ["eval", "debug", "lsp", "vibe_spawn"])
      expect(open[name]?.openWorldHint, name).toBe(true);
    expect(open.read?.openWorldHint).toBe(false);
    // On the host nothing closes the network; in a sandbox with the network off, nothing reaches it.
    expect((await annotations({ confine: "off", network: "off" })).eval?.openWorldHint).toBe(true);
    if (!probeBubblewrap().ok) return expect(process.env.CI).toBeFalsy();
    const closed = await annotations({ confine: "required", network: "off" });
    for (const name of ["eval", "debug", "lsp", "vibe_spawn"])
      expect(closed[name]?.openWorldHint, name).toBe(false);
  });
});
