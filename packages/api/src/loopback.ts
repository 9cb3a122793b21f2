/**
 * Loopback names and addresses: where a node without an API token may listen, and the only hosts
 * and origins its wallet routes answer then (auth.ts).
 */
import * as net from "node:net";

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addSubnet("::ffff:127.0.0.0", 104, "ipv6"); // IPv4-mapped 127.x, dotted or in hex (::ffff:7f00:1)

/** `localhost` (a trailing dot allowed), 127.0.0.0/8, `::1` and IPv4-mapped 127.x in any notation, bracketed or not. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "localhost.") return true;
  if (net.isIPv4(h)) return LOOPBACK.check(h, "ipv4");
  if (net.isIPv6(h)) return LOOPBACK.check(h, "ipv6");
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
