/**
 * `runbound tour` (what `npm start` runs), `runbound console [--workdir DIR] [--surface S] [--worker CMD]` and
 * `runbound doctor [--workdir DIR] [--home DIR]`. (`runbound setup` is answered by bin/runbound.mjs before this
 * module loads: it must work before anything else does.)
 */
import { parseArgs } from "node:util";
import { defaultHome } from "../setup/home.mjs";
import { setupMain } from "../setup/provision.mjs";
import { isSurface, SURFACES } from "../surfaces.js";
import { runConsole } from "./console.js";
import { runDoctor } from "./doctor.js";
import { runTour } from "./tour.js";

const USAGE = `usage:
  runbound setup [--only LIST] [--home DIR]      install what is not an npm package (Python environment, gopls,
                                                 delve, rust-analyzer, clangd, lldb) into runbound's home
  runbound doctor [--workdir DIR] [--home DIR]   every component: found where, version, what it serves, or the fix
  runbound tour                                  tour the tools over a copy of examples/workspace
  runbound console [--workdir DIR] [--surface S] call any tool by hand (S: ${SURFACES.join(", ")}; default full)
                   [--worker CMD]                turn on vibe_*: each worker runs sh -c CMD, the brief on stdin`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    workdir: { type: "string" },
    surface: { type: "string" },
    worker: { type: "string" },
    home: { type: "string" },
    only: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const command = positionals[0] ?? "tour";
if (values.help) {
  console.log(USAGE);
} else if (command === "setup") {
  process.exitCode = setupMain(process.argv.slice(3));
} else if (command === "doctor") {
  process.exitCode = await runDoctor(values.workdir ?? process.cwd(), values.home ?? defaultHome());
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
