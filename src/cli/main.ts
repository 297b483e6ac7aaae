/** `runbound tour` (what `npm start` runs) and `runbound console [--workdir DIR] [--surface S] [--worker CMD]`. */
import { parseArgs } from "node:util";
import { isSurface, SURFACES } from "../surfaces.js";
import { runConsole } from "./console.js";
import { runTour } from "./tour.js";

const USAGE = `usage:
  runbound tour                                  tour the tools over a copy of examples/workspace
  runbound console [--workdir DIR] [--surface S] call any tool by hand (S: ${SURFACES.join(", ")}; default full)
                   [--worker CMD]                turn on vibe_*: each worker runs sh -c CMD, the brief on stdin`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    workdir: { type: "string" },
    surface: { type: "string" },
    worker: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const command = positionals[0] ?? "tour";
if (values.help) {
  console.log(USAGE);
} else if (command === "tour") {
  await runTour();
} else if (command === "console") {
  const surface = values.surface ?? "full";
  if (!isSurface(surface)) {
    console.error(`--surface ${surface}: unknown surface; use one of ${SURFACES.join(", ")}`);
    process.exit(2);
  }
  await runConsole({
    workdir: values.workdir ?? process.cwd(),
    surface,
    ...(values.worker ? { worker: values.worker } : {}),
  });
} else {
  console.error(`unknown command "${command}"\n${USAGE}`);
  process.exit(2);
}
