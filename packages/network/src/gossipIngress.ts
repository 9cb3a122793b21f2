/**
 * Validation of incoming gossip (gossipsub `asyncValidation`): each message is size-checked, then
 * queued per topic (bounded in all and per peer; a full queue means Ignore) and handed to the
 * node's handler, whose verdict goes back to gossipsub: accept → deliver and forward, ignore →
 * drop, reject → drop and penalise the peer that sent it (gossipsub P4 score, plus our own
 * misbehaviour points).
 * A handler that throws or takes too long yields Ignore.
 */
import { TopicValidatorResult } from "@libp2p/gossipsub";
import type { NetworkLogger } from "./logger.js";
import { errorMessage } from "./logger.js";

export type GossipVerdict = "accept" | "ignore" | "reject";

export type GossipHandler = (data: Uint8Array, from: string) => GossipVerdict | Promise<GossipVerdict>;

export interface TopicIngressConfig {
  topic: string;
  /** Name for logs ("tx" | "block"). */
  name: string;
  maxBytes: number;
  /** Handlers running at once for this topic. */
  concurrency: number;
  /** Messages waiting beyond those running. */
  maxQueue: number;
  /**
   * Messages from one peer waiting: without it one peer's flood (one RPC may carry 1,000 messages)
   * took every place, and every other peer's messages meanwhile, an honest block among them, were
   * ignored (gossipsub does not fetch an ignored message again).
   */
  maxPeerQueue: number;
  /**
   * Bytes those waiting messages may hold in all, and from one peer: each is an owned copy of up
   * to `maxBytes`, and a count bound alone let one peer park `maxQueue × maxBytes` (512 MiB of
   * transaction batches) in the node. Past either, a message is ignored.
   */
  maxQueuedBytes: number;
  maxPeerQueuedBytes: number;
  handler: GossipHandler;
}

export interface GossipIngressContext {
  report(msgId: string, from: string, result: TopicValidatorResult): void;
  /** Called for every Reject (after it is reported). */
  rejected(from: string, topicName: string, reason: string): void;
  logger: NetworkLogger;
  /** Deadline of one handler call; past it the message is ignored (the call is not cancelled). */
  handlerTimeoutMs: number;
}

interface Job {
  msgId: string;
  from: string;
  data: Uint8Array;
}

export function verdictToResult(v: unknown): TopicValidatorResult {
  switch (v) {
    case "accept":
      return TopicValidatorResult.Accept;
    case "reject":
      return TopicValidatorResult.Reject;
    default:
      return TopicValidatorResult.Ignore;
  }
}

/** A topic queue's state, for tests and metrics. */
export interface GossipQueueStats {
  /** Handlers running. */
  running: number;
  /** Messages waiting, and their bytes. */
  waiting: number;
  waitingBytes: number;
  /** Messages ignored because the queue (or the sender's share of it) was full, since the start. */
  dropped: number;
}

class TopicQueue {
  private running = 0;
  private readonly waiting: Job[] = [];
  /** Bytes of the waiting messages in all; messages and bytes waiting by the peer that sent them. */
  private queuedBytes = 0;
  private readonly byPeer = new Map<string, { count: number; bytes: number }>();
  private dropped = 0;
  closed = false;

  constructor(
    readonly cfg: TopicIngressConfig,
    private readonly ctx: GossipIngressContext,
  ) {}

  offer(job: Job): boolean {
    if (this.closed) return false;
    if (this.running >= this.cfg.concurrency) {
      const bytes = job.data.length;
      const fromPeer = this.byPeer.get(job.from) ?? { count: 0, bytes: 0 };
      if (
        this.waiting.length >= this.cfg.maxQueue ||
        this.queuedBytes + bytes > this.cfg.maxQueuedBytes ||
        fromPeer.count >= this.cfg.maxPeerQueue ||
        fromPeer.bytes + bytes > this.cfg.maxPeerQueuedBytes
      ) {
        this.dropped++;
        return false;
      }
      this.waiting.push(job);
      this.queuedBytes += bytes;
      this.byPeer.set(job.from, { count: fromPeer.count + 1, bytes: fromPeer.bytes + bytes });
      return true;
    }
    this.start(job);
    return true;
  }

  stats(): GossipQueueStats {
    return { running: this.running, waiting: this.waiting.length, waitingBytes: this.queuedBytes, dropped: this.dropped };
  }

  private start(job: Job): void {
    this.running++;
    void this.run(job).finally(() => {
      this.running--;
      const next = this.waiting.shift();
      if (next === undefined) return;
      this.queuedBytes -= next.data.length;
      const fromPeer = this.byPeer.get(next.from);
      if (fromPeer !== undefined && fromPeer.count > 1) {
        this.byPeer.set(next.from, { count: fromPeer.count - 1, bytes: fromPeer.bytes - next.data.length });
      } else {
        this.byPeer.delete(next.from);
      }
      if (!this.closed) this.start(next);
    });
  }

  private async run(job: Job): Promise<void> {
    let result: TopicValidatorResult;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), this.ctx.handlerTimeoutMs);
        timer.unref();
      });
      const verdict = await Promise.race([Promise.resolve(this.cfg.handler(job.data, job.from)), timeout]);
      if (verdict === "timeout") {
        this.ctx.logger.warn({ topic: this.cfg.name, peer: job.from }, "Gossip handler timed out");
      }
      result = verdictToResult(verdict);
    } catch (e) {
      this.ctx.logger.debug({ topic: this.cfg.name, peer: job.from, err: errorMessage(e) }, "Gossip handler threw");
      result = TopicValidatorResult.Ignore;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    if (this.closed) return;
    this.ctx.report(job.msgId, job.from, result);
    if (result === TopicValidatorResult.Reject) this.ctx.rejected(job.from, this.cfg.name, "handler rejected");
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.queuedBytes = 0;
    this.byPeer.clear();
  }
}

export class GossipIngress {
  private readonly queues = new Map<string, TopicQueue>();

  constructor(
    topics: TopicIngressConfig[],
    private readonly ctx: GossipIngressContext,
  ) {
    for (const t of topics) this.queues.set(t.topic, new TopicQueue(t, ctx));
  }

  /** Entry point for one `gossipsub:message` event. */
  onMessage(msgId: string, from: string, topic: string, data: Uint8Array, signed: boolean): void {
    const q = this.queues.get(topic);
    if (q === undefined || q.closed) {
      this.ctx.report(msgId, from, TopicValidatorResult.Ignore);
      return;
    }
    if (signed || data.length > q.cfg.maxBytes) {
      this.ctx.report(msgId, from, TopicValidatorResult.Reject);
      const reason = signed ? "signed message under StrictNoSign" : "oversize message";
      this.ctx.logger.debug({ topic: q.cfg.name, peer: from, bytes: data.length }, "Gossip message rejected");
      this.ctx.rejected(from, q.cfg.name, reason);
      return;
    }
    // an owned plain copy: the decoded message may be a Buffer view into a whole RPC frame
    if (!q.offer({ msgId, from, data: new Uint8Array(data) })) {
      this.ctx.logger.debug({ topic: q.cfg.name, peer: from }, "Gossip queue full, message ignored");
      this.ctx.report(msgId, from, TopicValidatorResult.Ignore);
    }
  }

  /** A topic's queue: handlers running, messages waiting and their bytes, messages dropped. */
  stats(topic: string): GossipQueueStats {
    return this.queues.get(topic)?.stats() ?? { running: 0, waiting: 0, waitingBytes: 0, dropped: 0 };
  }

  close(): void {
    for (const q of this.queues.values()) q.close();
  }
}
