// Loaded into each Node process that a program under runbound's Node adapter starts (NODE_OPTIONS --require, which
// the adapter puts in the program's environment once it runs): a child process opens its inspector on a free
// loopback port, leaves where in the adapter's folder (RUNBOUND_NODE_CHILDREN), and waits for it before its first
// line. Worker threads are reached through their parent's inspector, and a process whose inspector is open already
// is left alone. A child whose adapter is gone runs on, as without it.
"use strict";
const fs = require("node:fs");
const inspector = require("node:inspector");
const path = require("node:path");
const { isMainThread } = require("node:worker_threads");

const folder = process.env.RUNBOUND_NODE_CHILDREN;
if (folder && isMainThread && !inspector.url() && adapterAlive(folder)) {
  inspector.open(0, "127.0.0.1", false);
  const file = path.join(folder, `${process.pid}.json`);
  fs.writeFileSync(
    `${file}.tmp`,
    JSON.stringify({ pid: process.pid, url: inspector.url(), argv: process.argv.slice(1) }),
  );
  fs.renameSync(`${file}.tmp`, file);
  inspector.waitForDebugger();
}

function adapterAlive(dir) {
  try {
    process.kill(Number(fs.readFileSync(path.join(dir, "adapter.pid"), "utf8")), 0);
    return true;
  } catch {
    return false;
  }
}
