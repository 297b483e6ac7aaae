/**
 * `npm run bench`: each benchmark prints runbound's figure beside its baseline from the same run, as a ratio.
 * Rounds alternate between the two sides so that machine noise falls on both alike; the figure is the median.
 */
import { benchCallOverhead } from "./call-overhead.js";

const results = [await benchCallOverhead()];
console.log("\nbenchmark                          runbound      baseline      ratio");
for (const r of results) {
  console.log(
    `${r.name.padEnd(34)} ${r.ours.toFixed(4).padStart(8)} ms  ${r.base.toFixed(4).padStart(8)} ms  ${(r.ours / r.base).toFixed(2)}×  (${r.baseline})`,
  );
}
