import { askUser } from "../questions/ask.js";
import { askUserInput, askUserOutput } from "../questions/schema.js";
import { defineTool } from "../registry.js";

export const askUserTool = defineTool({
  name: "ask_user",
  effects: { files: "read", starts: "nothing", kills: false, network: false, idempotent: false },
  title: "Ask the person",
  tier: "read",
  needs: ["questions"],
  parallelSafe: true,
  description: [
    "Ask the person running this session a question and wait for the answer, shown to them as a numbered card.",
    "Use it when a decision is theirs to make (a choice with real consequences, missing requirements); do not write questions as chat text.",
    "State in `context` what you will assume if they skip. A skip is a success: go on with that assumption and do not ask again.",
    "A timeout or 'no person connected' is an error with no answer: never invent one.",
  ].join(" "),
  input: askUserInput,
  output: askUserOutput,
  async run(args, ctx) {
    return askUser(ctx.use("questions"), args, ctx.signal);
  },
});
