import { describe, expect, it } from "vitest";
import { createRun, ProgrammaticQuestionPort, SURFACES } from "../src/index.js";
import { track, workdirWith } from "./helpers.js";

// The JSON schemas a client lists are part of the contract the model reads. A change here must be deliberate:
// update with `npm run snapshots` and review the diff. In CI (CI=true) a difference fails the run.
describe("tools/list schemas per surface (snapshots)", () => {
  for (const surface of SURFACES) {
    it(`${surface}: tools/list matches its snapshot (names, descriptions, input and output schemas)`, async () => {
      const workdir = await workdirWith();
      const run = track(
        await createRun({ workdir, conversationId: "c", questions: new ProgrammaticQuestionPort() }),
      );
      const { tools } = await (await run.link({ surface })).listTools();
      await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(`./schemas/${surface}.json`);
    });
  }
});
