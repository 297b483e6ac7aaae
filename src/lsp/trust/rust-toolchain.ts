/**
 * What keeps rustup and cargo from running a project's own programs while an untrusted workspace loads: its
 * rust-toolchain.toml can name a toolchain folder of its own (rustup's proxies would then run that folder's
 * rust-analyzer, cargo and rustc), and its .cargo/config.toml a rustc, or a wrapper around rustc, that cargo runs to
 * read the target. The environment outranks both files: rustup's default toolchain, cargo's rustc from it, no
 * wrapper.
 */
import { spawnSync } from "node:child_process";
import { childEnvironment } from "../../proc/environment.js";

let defaultToolchain: string | null | undefined;

/** rustup's default toolchain (asked once per process, from `/`: no folder's override applies), or null. */
function rustupDefault(): string | null {
  if (defaultToolchain !== undefined) return defaultToolchain;
  const r = spawnSync("rustup", ["default"], {
    cwd: "/",
    encoding: "utf8",
    timeout: 10_000,
    env: childEnvironment(process.env),
  });
  const name = r.status === 0 ? /^(\S+)/.exec(r.stdout ?? "")?.[1] : undefined;
  defaultToolchain = name && name !== "no" ? name : null;
  return defaultToolchain;
}

export function rustWithoutProjectPrograms(): Record<string, string> {
  const toolchain = rustupDefault();
  return {
    RUSTC_WRAPPER: "",
    RUSTC_WORKSPACE_WRAPPER: "",
    RUSTC: "rustc",
    ...(toolchain ? { RUSTUP_TOOLCHAIN: toolchain } : {}),
  };
}
