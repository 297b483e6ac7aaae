import { ToolError } from "../errors.js";
import { oneLine, plural, splitLines } from "../files/text.js";
import { EVAL_FROM_CELL } from "../kernels/answers.js";
import { sourceText } from "../notebooks/document.js";
import { planRun, runNotebook } from "../notebooks/run.js";
import { type NotebookRunArgs, notebookRunInput, notebookRunOutput } from "../notebooks/schema.js";
import { defineTool } from "../registry.js";

/** What the person approved, per call: the notebook as it was then, and the code shown to them. */
const approved = new WeakMap<NotebookRunArgs, { digest: string; summary: string }>();

export const notebookRunTool = defineTool({
  name: "notebook_run",
  // The notebook's cells write, start, and reach what the run's network allows; reset ends the kernel.
  effects: { files: "write", starts: "code", kills: true, network: true, idempotent: false },
  title: "Run a Jupyter notebook's cells",
  tier: "exec",
  needs: ["notebooks", "kernels"],
  parallelSafe: false,
  lane: "eval",
  writes: true,
  runsCode: true,
  description: [
    'Run a Jupyter notebook\'s code cells ("all", "3", "2-5", "4-" from 4 to the end, or an id) in this run\'s',
    "kernel for its language (the one eval uses), in the notebook's folder, and store their outputs and execution",
    "counts in the file as Jupyter does. Stops at the first error unless continue_on_error. Answers each cell as eval does.",
  ].join(" "),
  input: notebookRunInput,
  output: notebookRunOutput,
  // The person approves the code that will run, not only the notebook's name.
  async check(args, ctx) {
    const { open, cells } = await planRun(ctx.use("notebooks"), args);
    const code = cells.map((c) => sourceText(c.cell)).join("\n");
    approved.set(args, {
      digest: open.doc.digest,
      summary: `run ${plural(cells.length, "cell")} of ${open.target.shown} (${cells.map((c) => c.index).join(", ")}; ${plural(splitLines(code).length, "line")}): ${oneLine(code, 300)}`,
    });
  },
  describeCall: (args) => approved.get(args)?.summary ?? `run cells ${args.cells ?? "all"} of ${args.path}`,
  async run(args, ctx) {
    const notebooks = ctx.use("notebooks");
    const seen = approved.get(args);
    if (seen) {
      const { open } = await planRun(notebooks, args);
      if (open.doc.digest !== seen.digest)
        throw new ToolError(
          `${open.target.shown} changed on disk after this call was checked and approved; nothing ran. Call notebook to read it again, then notebook_run.`,
        );
    }
    const result = await runNotebook(
      notebooks,
      args,
      ctx.use("kernels"),
      async (name, toolArgs) =>
        name === "eval" || name === "notebook_run" ? EVAL_FROM_CELL : ctx.callTool(name, toolArgs),
      ctx.signal,
    );
    return {
      text: result.text,
      structured: result.structured,
      content: result.content,
      written: result.written,
    };
  },
});
