/**
 * Loopback names and addresses: where a node without an API token may listen, and the only hosts
 * and origins its wallet routes answer then (auth.ts).
 */
import * as net from "node:net";

/** `localhost`, 127.0.0.0/8, `::1` (bracketed or not), and IPv4-mapped 127.x. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (h.startsWith("::ffff:") && net.isIPv4(h.slice(7))) return h.slice(7).startsWith("127.");
  return false;
}

/** The host of a `Host` header value (`127.0.0.1:6869`, `[::1]:6869`, `localhost`), without its port. */
export function hostOfHeader(value: string): string {
  const v = value.trim();
  if (v.startsWith("[")) {
    const end = v.indexOf("]");
    return end < 0 ? v : v.slice(0, end + 1);
  }
  const colon = v.indexOf(":");
  // one colon: host:port; more than one and no brackets: not a valid Host value, kept whole
  return colon >= 0 && colon === v.lastIndexOf(":") ? v.slice(0, colon) : v;
}
