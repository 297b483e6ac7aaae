/**
 * The allow-list proxy behind a sandbox's HTTP_PROXY (the sandbox itself: places-confined): which hosts match, and
 * CONNECT tunnels opened only to listed ones.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net, { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hostAllowed, startAllowListProxy } from "../src/proc/network-proxy.js";

describe("the allow-list proxy", () => {
  it("matches a host on any port, host:port on that port only, *.domain on its subdomains only", () => {
    const allow = ["pypi.org", "files.pythonhosted.org:443", "*.github.com"];
    expect(hostAllowed(allow, "pypi.org", 443)).toBe(true);
    expect(hostAllowed(allow, "PyPI.org", 80)).toBe(true);
    expect(hostAllowed(allow, "evil-pypi.org", 443)).toBe(false);
    expect(hostAllowed(allow, "files.pythonhosted.org", 443)).toBe(true);
    expect(hostAllowed(allow, "files.pythonhosted.org", 80)).toBe(false);
    expect(hostAllowed(allow, "api.github.com", 443)).toBe(true);
    expect(hostAllowed(allow, "github.com", 443)).toBe(false);
    expect(hostAllowed(allow, "github.com.evil.net", 443)).toBe(false);
  });

  it("CONNECT opens a tunnel to a listed host and answers 403 for any other, naming it", async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const port = (echo.address() as { port: number }).port;
    const dir = mkdtempSync(path.join(tmpdir(), "runbound-proxy-"));
    const proxy = startAllowListProxy(path.join(dir, "proxy.sock"), [`127.0.0.1:${port}`]);
    const connect = (target: string, payload: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(path.join(dir, "proxy.sock"));
        let seen = "";
        socket.on("data", (d) => {
          seen += d.toString();
          if (seen.includes("\r\n\r\n") && seen.startsWith("HTTP/1.1 200") && !seen.includes(payload))
            socket.write(payload);
          if (seen.includes(payload) || seen.startsWith("HTTP/1.1 403")) socket.end();
        });
        socket.on("close", () => resolve(seen));
        socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      });
    try {
      expect(await connect(`127.0.0.1:${port}`, "ping through the tunnel")).toBe(
        "HTTP/1.1 200 Connection Established\r\n\r\nping through the tunnel",
      );
      expect(await connect(`127.0.0.1:${port + 1}`, "x")).toMatch(
        new RegExp(
          `^HTTP/1\\.1 403 Forbidden\\r\\n[^]*runbound: 127\\.0\\.0\\.1:${port + 1} is not on this run's allow-list`,
        ),
      );
    } finally {
      proxy.close();
      echo.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
