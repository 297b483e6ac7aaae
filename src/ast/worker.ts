/**
 * A search worker thread: runs its share of a search's files on its own core, keeping the trees it parsed for the
 * run's next searches, and sends back the files that matched.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ensureGrammars } from "../../grammars/index.js";
import { collectorFor } from "./collect.js";
import { runTask, type SearchTask } from "./task.js";
import { TreeCache } from "./tree-cache.js";

ensureGrammars();
const trees = new TreeCache((workerData as { treeBudget: number }).treeBudget);
const collect = collectorFor(trees);

parentPort?.on("message", async (task: SearchTask) => {
  parentPort?.postMessage(await runTask(task, trees, collect));
  await collect();
});
