/**
 * The addresses this node may dial, and the only ones libp2p's peer store keeps: those it was
 * given, its bootstrap list and the addresses passed to `Network.dial()`. Never an address a peer
 * announced about itself (identify's listen addresses, a signed peer record, gossipsub peer
 * exchange): a peer can announce any host and port, up to 25 of which libp2p tries per dial, and a
 * node that dialled them could be made to connect to arbitrary hosts.
 *
 * Addresses are compared without their `/p2p/<peerId>` part: what is dialled is the host and port.
 */
import { CODE_P2P, multiaddr, type Multiaddr } from "@multiformats/multiaddr";

function dialKey(addr: Multiaddr): string {
  return addr.decapsulateCode(CODE_P2P).toString();
}

export class DialPolicy {
  private readonly allowed = new Set<string>();

  constructor(addrs: Iterable<string>) {
    for (const a of addrs) this.allow(multiaddr(a));
  }

  /** Lets the node dial `addr` (an address it was told to dial). */
  allow(addr: Multiaddr): void {
    this.allowed.add(dialKey(addr));
  }

  /** Whether the node may dial `addr`, and keep it in its peer store. */
  allows(addr: Multiaddr): boolean {
    return this.allowed.has(dialKey(addr));
  }
}
