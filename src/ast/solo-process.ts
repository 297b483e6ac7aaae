/**
 * A search process for files too large to parse among the run's threads: one file per task, nothing kept, and the
 * process ends with the search — so its memory goes back to the system whole, and if the system runs out, the
 * kernel ends this process, not the host.
 */
import { ensureGrammars } from "../../grammars/index.js";
import { collectorFor } from "./collect.js";
import { runTask, type SearchTask } from "./task.js";
import { TreeCache } from "./tree-cache.js";

ensureGrammars();
const trees = new TreeCache(0);
const collect = collectorFor(trees);

process.on("message", async (task: SearchTask) => {
  process.send?.(await runTask(task, trees, collect));
  await collect();
});
process.on("disconnect", () => process.exit(0));
