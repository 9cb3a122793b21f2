/**
 * Misbehaviour accounting, in memory: points per peer that halve every `halfLifeMs`, and bans that
 * expire. A peer whose points reach `banThreshold` is banned for `banDurationMs` (the caller then
 * disconnects it, and the connection gater refuses it until the ban ends). Both maps are bounded.
 * Timed on a monotonic clock by default (`performance.now()`): a step of the host's wall clock
 * neither lengthens a ban (a step back) nor ends it early (a step forward).
 */

export interface PeerBookOptions {
  banThreshold: number;
  banDurationMs: number;
  halfLifeMs: number;
  /** Upper bound on tracked peers in each map. */
  maxEntries?: number;
}

interface Points {
  value: number;
  at: number;
}

export interface BanEntry {
  peerId: string;
  /** When the ban ends, on the book's clock (monotonic ms by default: not a date). */
  until: number;
  reason: string;
}

const DEFAULT_MAX_ENTRIES = 4096;
const NEGLIGIBLE = 0.01;

export class PeerBook {
  private readonly points = new Map<string, Points>();
  private readonly banned = new Map<string, BanEntry>();
  private readonly maxEntries: number;

  constructor(
    private readonly opts: PeerBookOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  /** Current (decayed) misbehaviour points of a peer. */
  pointsOf(peerId: string): number {
    const p = this.points.get(peerId);
    return p === undefined ? 0 : this.decayed(p, this.now());
  }

  /**
   * Adds misbehaviour points. Returns true when this call bans the peer (it was not banned before
   * and its points reached the threshold); the points then reset.
   */
  addPoints(peerId: string, amount: number, reason: string): boolean {
    if (!(amount > 0)) return false;
    const now = this.now();
    const value = this.pointsOf(peerId) + amount;
    this.points.delete(peerId); // re-insert: Map order = least recently touched first
    // NEGLIGIBLE tolerance: points decay continuously, so n events of 1 point sum to just under n
    if (value >= this.opts.banThreshold - NEGLIGIBLE && !this.isBanned(peerId)) {
      this.ban(peerId, reason);
      return true;
    }
    this.points.set(peerId, { value, at: now });
    this.evict(this.points);
    return false;
  }

  ban(peerId: string, reason: string, durationMs = this.opts.banDurationMs): void {
    this.points.delete(peerId);
    this.banned.delete(peerId);
    this.banned.set(peerId, { peerId, until: this.now() + durationMs, reason });
    this.evict(this.banned);
  }

  unban(peerId: string): void {
    this.banned.delete(peerId);
  }

  isBanned(peerId: string): boolean {
    const b = this.banned.get(peerId);
    if (b === undefined) return false;
    if (b.until <= this.now()) {
      this.banned.delete(peerId);
      return false;
    }
    return true;
  }

  bans(): BanEntry[] {
    this.prune();
    return [...this.banned.values()].map((b) => ({ ...b }));
  }

  /** Drops expired bans and negligible point records. */
  prune(): void {
    const now = this.now();
    for (const [id, b] of this.banned) if (b.until <= now) this.banned.delete(id);
    for (const [id, p] of this.points) if (this.decayed(p, now) < NEGLIGIBLE) this.points.delete(id);
  }

  private decayed(p: Points, now: number): number {
    const dt = Math.max(0, now - p.at);
    return p.value * Math.pow(0.5, dt / this.opts.halfLifeMs);
  }

  private evict<V>(map: Map<string, V>): void {
    if (map.size <= this.maxEntries) return;
    this.prune();
    // still too many: drop the oldest-inserted entries
    for (const key of map.keys()) {
      if (map.size <= this.maxEntries) break;
      map.delete(key);
    }
  }
}
