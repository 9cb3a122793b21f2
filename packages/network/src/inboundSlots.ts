/**
 * Who gets an inbound connection slot once the node is full. libp2p refuses every inbound
 * connection at `maxConnections`, so a few hosts holding `maxConnectionsPerHost` each (4 × 32
 * fill 100) would keep every new peer out for as long as they stay. Instead, when the inbound
 * slots are full, a newcomer from a host holding fewer connections takes the place of the newest
 * inbound connection of the host that holds the most (if it holds at least two more than the
 * newcomer's host holds now): slots converge to an equal share per host, and a host at its share
 * is refused as before. Long-lived connections are kept over young ones; the node's own dials are never
 * evicted, and `OUTBOUND_RESERVE` slots stay free of inbound connections for them. A host makes
 * room this way at most once per `EVICTION_COOLDOWN_MS`: the decision is taken before the
 * newcomer's handshake, and one that then hangs up and comes back must not churn the peers of a
 * shared host (a NAT, a devnet on one machine) at libp2p's 5 connections a second.
 *
 * Many hosts (a botnet, one IPv6 client with many prefixes) still fill every slot: that is the
 * limit of counting by address (docs/reliability.md, "What is not covered").
 */

/** Slots under `maxConnections` that inbound connections do not take: room for the node's own dials. */
export const OUTBOUND_RESERVE = 4;

/** How long a host that made room by evicting must wait before it may do so again. */
export const EVICTION_COOLDOWN_MS = 10_000;
/** Hosts whose last eviction is remembered; past it, those older than the cooldown are forgotten. */
const MAX_REMEMBERED_EVICTORS = 1_024;

/** One open connection, as the decision sees it. */
export interface SlotHolder {
  /** The remote host's key (`hostKey` of its IP address); undefined when it has none. */
  readonly host: string | undefined;
  readonly inbound: boolean;
  /** When it opened (ms): the newest of a host is the one evicted. */
  readonly opened: number;
}

export type InboundDecision =
  | { readonly admit: true; readonly evict?: number }
  | { readonly admit: false; readonly reason: "host-full" | "node-full" | "cooldown" };

/**
 * Whether an inbound connection from `host` may take a slot among `open`, and which connection
 * (its index in `open`) must close to make room for it, if any.
 */
export function inboundDecision(
  open: readonly SlotHolder[],
  host: string | undefined,
  limits: { readonly maxConnections: number; readonly maxConnectionsPerHost: number },
  cooldown?: { has(host: string): boolean },
): InboundDecision {
  let own = 0;
  if (host !== undefined) for (const c of open) if (c.host === host) own++;
  if (own >= limits.maxConnectionsPerHost) return { admit: false, reason: "host-full" };
  const inboundSlots = Math.max(1, limits.maxConnections - OUTBOUND_RESERVE);
  if (open.length < inboundSlots) return { admit: true };
  // full: the host with the most inbound connections gives up its newest, if it holds at least
  // two more than the newcomer's host holds now (else the newcomer is at its share)
  const inboundOf = new Map<string, number[]>();
  open.forEach((c, i) => {
    if (!c.inbound || c.host === undefined) return;
    const list = inboundOf.get(c.host);
    if (list) list.push(i);
    else inboundOf.set(c.host, [i]);
  });
  let largest: number[] | undefined;
  for (const list of inboundOf.values()) if (largest === undefined || list.length > largest.length) largest = list;
  if (largest === undefined || largest.length < own + 2) return { admit: false, reason: "node-full" };
  if (host !== undefined && cooldown?.has(host)) return { admit: false, reason: "cooldown" };
  let newest = largest[0]!;
  for (const i of largest) if (open[i]!.opened > open[newest]!.opened) newest = i;
  return { admit: true, evict: newest };
}

/** The hosts that made room recently (the cooldown's memory, bounded; monotonic time by default). */
export class EvictionCooldown {
  private readonly last = new Map<string, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  has(host: string): boolean {
    const at = this.last.get(host);
    return at !== undefined && this.now() - at < EVICTION_COOLDOWN_MS;
  }

  /** Records that `host` made room now. */
  note(host: string): void {
    const now = this.now();
    if (this.last.size >= MAX_REMEMBERED_EVICTORS) {
      for (const [h, at] of this.last) if (now - at >= EVICTION_COOLDOWN_MS) this.last.delete(h);
      // all recent: the oldest goes (a map iterates in insertion order, and notes are in time order)
      if (this.last.size >= MAX_REMEMBERED_EVICTORS) this.last.delete(this.last.keys().next().value!);
    }
    this.last.delete(host);
    this.last.set(host, now);
  }
}
