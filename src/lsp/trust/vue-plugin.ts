/**
 * Vue's TypeScript plugin (@vue/typescript-plugin, in runbound's home), as tsserver loads it for `.vue` files — and,
 * in an untrusted workspace, behind runbound's wrapper: the plugin `require`s every module a project's tsconfig names
 * in `vueCompilerOptions.plugins`, the repository's own code; the wrapper drops that key before Vue reads it, so
 * nothing of the project runs. tsserver finds a plugin by name under a probe location's node_modules: the wrapper is
 * written there, in runbound's home, naming the plugin it wraps by its absolute path.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { componentPackage } from "../../setup/npm.js";

/** The name tsserver loads the wrapper by, under the probe location. */
export const VUE_WRAPPER = "runbound-vue-without-project-plugins";

/** The plugin's package folder, when the home has it. */
export function vuePluginFolder(home: string): string | undefined {
  return componentPackage("@vue/typescript-plugin", home)?.dir;
}

/** The probe location holding the wrapper (written, or rewritten when the plugin moved); undefined without the plugin. */
export function vueWrapperLocation(home: string): string | undefined {
  const plugin = vuePluginFolder(home);
  if (!plugin) return undefined;
  const entry = createRequire(path.join(plugin, "package.json")).resolve("@vue/typescript-plugin");
  const core = createRequire(entry).resolve("@vue/language-core");
  const location = path.join(home, "vue-plugin");
  const file = path.join(location, "node_modules", VUE_WRAPPER, "index.js");
  const text = wrapperSource(entry, core);
  if (!existsSync(file) || readFileSync(file, "utf8") !== text) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return location;
}

function wrapperSource(plugin: string, core: string): string {
  return `"use strict";
// Written by runbound: Vue's TypeScript plugin without the plugins a project's tsconfig names
// (vueCompilerOptions.plugins), each of which is the project's own code.
const core = require(${JSON.stringify(core)});
const addConfig = core.CompilerOptionsResolver.prototype.addConfig;
core.CompilerOptionsResolver.prototype.addConfig = function (options, rootDir) {
  if (!options || typeof options !== "object" || !("plugins" in options)) return addConfig.call(this, options, rootDir);
  const { plugins: _plugins, ...rest } = options;
  return addConfig.call(this, rest, rootDir);
};
module.exports = require(${JSON.stringify(plugin)});
`;
}
