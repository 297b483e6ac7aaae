/**
 * The proxy behind a sandbox's HTTP_PROXY (the sandbox itself: places-confined, isolation-network): which hosts
 * match, CONNECT tunnels opened only to listed ones, and with the network on (`*`) never to the host's loopback.
 */
import { mkdtempSync, rmSync } from "node:fs";
import net, { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  hostAllowed,
  isInternalAddress,
  MAX_CONNECTIONS,
  startAllowListProxy,
} from "../src/proc/network-proxy.js";

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

  it("tells loopback, private, link-local, shared and multicast addresses from public ones", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
    ])
      expect(isInternalAddress(address), address).toBe(true);
    for (const address of ["1.1.1.1", "172.32.0.1", "100.128.0.1", "151.101.0.223", "2606:4700::1111"])
      expect(isInternalAddress(address), address).toBe(false);
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
      // A listed name whose address is loopback (a DNS record can point anywhere) is refused; the address listed as
      // such is not.
      const named = startAllowListProxy(path.join(dir, "named.sock"), [`localhost:${port}`]);
      try {
        const viaName = await new Promise<string>((resolve) => {
          const socket = net.connect(path.join(dir, "named.sock"));
          let seen = "";
          socket.on("data", (d) => {
            seen += d.toString();
          });
          socket.on("close", () => resolve(seen));
          socket.write(`CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
        });
        expect(viaName).toMatch(
          /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*runbound: localhost resolves to [^,\n]*127\.0\.0\.1[\s\S]*, a loopback or private address, which this run reaches only if the harness lists the address itself/,
        );
      } finally {
        named.close();
      }
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

  it("the network on (`*`): any host by name, but loopback and private addresses only when listed as themselves", async () => {
    const echo = createServer((socket) => socket.end("answered from the host's loopback"));
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const port = (echo.address() as { port: number }).port;
    const dir = mkdtempSync(path.join(tmpdir(), "runbound-proxy-"));
    const ask = (socketName: string, request: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(path.join(dir, socketName));
        let seen = "";
        socket.on("data", (d) => {
          seen += d.toString();
          if (seen.includes("answered") || seen.startsWith("HTTP/1.1 403")) socket.end();
        });
        socket.on("close", () => resolve(seen));
        socket.write(request);
      });
    const open = startAllowListProxy(path.join(dir, "on.sock"), ["*"]);
    const listed = startAllowListProxy(path.join(dir, "listed.sock"), ["*", "127.0.0.1"]);
    try {
      expect(hostAllowed(["*"], "pypi.org", 443)).toBe(true);
      for (const target of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::ffff:127.0.0.1]:${port}`,
        `0.0.0.0:${port}`,
      ]) {
        const answer = await ask("on.sock", `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
        expect(answer, target).toMatch(
          /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*runbound: [^\n]*loopback or private address/,
        );
        expect(answer, target).not.toContain("answered");
      }
      const plain = await ask("on.sock", `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(plain).toMatch(
        /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*runbound: 127\.0\.0\.1 is a loopback or private address/,
      );
      // `*` lists no address as itself; the address written out does.
      expect(await ask("listed.sock", `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe(
        "HTTP/1.1 200 Connection Established\r\n\r\nanswered from the host's loopback",
      );
    } finally {
      open.close();
      listed.close();
      echo.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("at most MAX_CONNECTIONS at once: the next connection is closed, the ones open stay", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "runbound-proxy-"));
    const proxy = startAllowListProxy(path.join(dir, "cap.sock"), ["*"]);
    const open: net.Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const socket = net.connect(path.join(dir, "cap.sock"));
        await new Promise((resolve) => socket.once("connect", resolve));
        open.push(socket);
      }
      const over = net.connect(path.join(dir, "cap.sock"));
      await new Promise((resolve) => over.once("close", resolve));
      expect(open.every((s) => !s.destroyed)).toBe(true);
    } finally {
      for (const s of open) s.destroy();
      proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
