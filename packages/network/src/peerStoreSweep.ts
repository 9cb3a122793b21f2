/**
 * Keeps libp2p's peer store to the peers the node deals with: its bootstrap peers and the peers it
 * is connected to. libp2p keeps an entry for every peer that ever connected (its identify data:
 * protocols, agent version, signed record) for up to 6 hours and anchord never reads it back, so
 * throwaway identities that connect and leave would each leave one behind.
 *
 * Every PEER_STORE_SWEEP_MS, an entry of a peer that is neither a bootstrap peer nor connected is
 * marked, and deleted at the next sweep if that still holds and the peer did not connect meanwhile:
 * libp2p reads the entry when a peer disconnects (to tell gossipsub the peer left), and a deletion
 * before that read would leave the peer in gossipsub's state. A banned peer is disconnected, so
 * its entry goes too. What one entry may hold is bounded elsewhere (host.ts: identify's message
 * size, and the peer store keeps only addresses the node may dial).
 */
import type { Host } from "./host.js";

export const PEER_STORE_SWEEP_MS = 5_000;

export class PeerStoreSweeper {
  /** Peers found neither kept nor connected at the last sweep. */
  private gone = new Set<string>();
  /** Peers that connected while a sweep ran (it may have found them gone just before). */
  private readonly touched = new Set<string>();
  private running = false;

  constructor(
    private readonly node: Host,
    /** Peers whose entry stays (the bootstrap peers). */
    private readonly keep: ReadonlySet<string>,
  ) {}

  /** A peer connected: it is not gone (whatever the last sweep found). */
  connected(peerId: string): void {
    this.gone.delete(peerId);
    if (this.running) this.touched.add(peerId);
  }

  /** One sweep; resolves to the number of entries deleted (0 while another sweep runs). */
  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const next = new Set<string>();
      let deleted = 0;
      for (const peer of await this.node.peerStore.all()) {
        const id = peer.id.toString();
        if (this.keep.has(id) || this.node.getConnections(peer.id).length > 0) continue;
        if (this.gone.has(id)) {
          await this.node.peerStore.delete(peer.id);
          deleted++;
        } else {
          next.add(id);
        }
      }
      for (const id of this.touched) next.delete(id);
      this.gone = next;
      return deleted;
    } finally {
      this.touched.clear();
      this.running = false;
    }
  }
}
