/**
 * A search process (see searcher.ts): runs the tasks it is sent one after another, keeping the trees it parsed up
 * to the budget its command line gives, and exits when the run lets go of it.
 */
import { ensureGrammars } from "../../../grammars/index.js";
import { collectorFor } from "./collect.js";
import { runTask, type SearchTask } from "./task.js";
import { TreeCache } from "./tree-cache.js";

ensureGrammars(process.argv[3]);
const trees = new TreeCache(Number(process.argv[2] ?? 0));
const collect = collectorFor(trees);

// One task at a time: a collection's turns of the event loop would let the next one in.
let last: Promise<void> = Promise.resolve();
process.on("message", (task: SearchTask) => {
  last = last.then(async () => {
    process.send?.(await runTask(task, trees, collect));
    await collect();
  });
});
process.on("disconnect", () => process.exit(0));
