/**
 * @jupyterlab/services reports connection state with console.debug ("Starting WebSocket: ws://…", "Kernel: idle (…)").
 * In a harness that owns the terminal or speaks JSON-RPC on stdout, those lines are noise or corruption, and runbound
 * already reports what matters (a dead kernel, in the cell's answer). Drop exactly those two lines; pass the rest on.
 */
const NOISE = /^(Starting WebSocket: |Kernel: \w+ \()/;
// A set, not a marker property: spies and wrappers often copy a function's own properties.
const quietOnes = new WeakSet<(...data: unknown[]) => void>();

/** Idempotent; wraps whatever console.debug is now (a host or test may have replaced it since the last call). */
export function quietServicesDebug(): void {
  const current = console.debug;
  if (quietOnes.has(current)) return;
  const quiet = (...data: unknown[]) => {
    if (typeof data[0] === "string" && NOISE.test(data[0])) return;
    current.apply(console, data);
  };
  quietOnes.add(quiet);
  console.debug = quiet;
}
