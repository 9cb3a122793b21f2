/**
 * The key a client is counted under, for the rate limits (rateLimit.ts) and the answer guard
 * (answerGuard.ts). A module of its own so that neither imports the other's dependencies
 * (answerGuard → rateLimit → http → answerGuard was an import cycle).
 */
import * as net from "node:net";
import type { Socket } from "node:net";

/** Expands an IPv6 address to its eight 16-bit groups (undefined if it is not one). */
function ipv6Groups(address: string): number[] | undefined {
  if (!net.isIPv6(address)) return undefined;
  let text = address.split("%", 1)[0]!;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  if (net.isIPv4(last)) {
    const [a, b, c, d] = last.split(".").map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, lastColon + 1) + "0"; // placeholder group, removed below
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  let groups: number[];
  if (rest === undefined) groups = parse(head);
  else {
    const h = parse(head);
    const r = parse(rest);
    groups = [...h, ...new Array<number>(Math.max(0, 8 - h.length - r.length - (tail.length > 0 ? 1 : 0))).fill(0), ...r];
  }
  if (tail.length > 0) groups = [...groups.slice(0, -1), ...tail];
  return groups.length === 8 ? groups : undefined;
}

/** The key a client is counted under: its IPv4 address, or its IPv6 /56 prefix. */
export function clientKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return "unknown";
  if (net.isIPv4(remoteAddress)) return remoteAddress;
  const groups = ipv6Groups(remoteAddress);
  if (groups === undefined) return remoteAddress;
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 client itself
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(":")}:${(groups[3]! & 0xff00).toString(16)}::/56`;
}

const keyBySocket = new WeakMap<Socket, string>();

/** `clientKey` of a socket's peer, worked out once per connection (it is asked on every request). */
export function socketClientKey(socket: Socket): string {
  let key = keyBySocket.get(socket);
  if (key === undefined) {
    key = clientKey(socket.remoteAddress);
    // a socket that has not connected (or has gone) has no address yet: not remembered
    if (socket.remoteAddress !== undefined) keyBySocket.set(socket, key);
  }
  return key;
}
