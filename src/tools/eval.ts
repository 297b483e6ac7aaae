import { oneLine, plural, splitLines } from "../files/text.js";
import { checkCell, EVAL_FROM_CELL, evalAnswer } from "../kernels/answers.js";
import { evalInput, evalOutput } from "../kernels/schema.js";
import { defineTool } from "../registry.js";

const PROGRESS_EVERY_MS = 5000;

export const evalTool = defineTool({
  name: "eval",
  // A cell's code writes, starts, and reaches what the run's network allows; reset ends the kernel.
  effects: { files: "write", starts: "code", kills: true, network: true, idempotent: false },
  title: "Run code in a persistent kernel",
  tier: "exec",
  needs: ["kernels"],
  parallelSafe: false,
  runsCode: true,
  description: [
    "Run a Python (default) or JavaScript cell in a persistent Jupyter kernel: variables, imports and loaded data stay",
    "between calls. The last expression's value is returned, display() works, pandas frames come back as tables and",
    "matplotlib figures as images; %pip, %cd, !cmd, %%bash, %%timeit work in Python. Inside a cell,",
    'tool("read", {"path": "a.py"}) calls this run\'s tools with the same permissions (in JavaScript it is a promise:',
    "`await tool(...)`; imports resolve from the workdir, display.html(...) shows HTML). `reset` starts a fresh kernel.",
  ].join(" "),
  input: evalInput,
  output: evalOutput,
  // The code itself, not only the model's own words about it: the person approves what will run.
  describeCall: (args) =>
    `run ${args.language ?? "python"} code (${plural(splitLines(args.code).length, "line")}): ${oneLine(args.code, 300)} — described as "${args.description}"`,
  check: checkCell,
  async run(args, ctx) {
    const language = args.language ?? "python";
    // MCP clients give up on a call after minutes of silence: a long cell reports that it is still running.
    const started = Date.now();
    const keepalive = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      void ctx
        .progress({ progress: seconds, message: `cell running for ${seconds} s` })
        .catch(() => undefined);
    }, PROGRESS_EVERY_MS);
    const result = await ctx
      .use("kernels")
      .run(
        args.code,
        language,
        args.reset ?? false,
        async (name, toolArgs) => {
          // The cell runs inside this eval call: an eval or notebook_run from it would wait for itself (same lane) forever.
          if (name === "eval" || name === "notebook_run") return EVAL_FROM_CELL;
          return ctx.callTool(name, toolArgs);
        },
        ctx.signal,
      )
      .finally(() => clearInterval(keepalive));
    return evalAnswer(result, language, ctx.use("kernels").maxCellSeconds);
  },
});
