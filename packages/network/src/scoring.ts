/**
 * Gossipsub peer-score parameters. Traffic on an anchord network is sparse and bursty (a block per
 * delay, tx batches on demand), so the delivery-rate penalties (P3, P3b) are off; what matters is P4:
 * every rejected message costs `-10 · n²` on its topic, so a peer graylisted (all its RPCs ignored)
 * after about five invalid messages, and it halves in about 70 s. P5 (application score) carries
 * the network's own misbehaviour points (sync garbage, node penalties).
 */
import type { PeerScoreParams, PeerScoreThresholds, TopicScoreParams } from "@libp2p/gossipsub/score";

export const scoreThresholds: PeerScoreThresholds = {
  gossipThreshold: -40,
  publishThreshold: -80,
  graylistThreshold: -160,
  acceptPXThreshold: 100,
  opportunisticGraftThreshold: 5,
};

export const INVALID_MESSAGE_WEIGHT = -10;

export function topicScoreParams(): TopicScoreParams {
  return {
    topicWeight: 1,
    // P1: time in mesh, seconds, small positive
    timeInMeshWeight: 0.01,
    timeInMeshQuantum: 1000,
    timeInMeshCap: 300,
    // P2: first deliveries of valid messages, small positive
    firstMessageDeliveriesWeight: 0.5,
    firstMessageDeliveriesDecay: 0.99,
    firstMessageDeliveriesCap: 20,
    // P3 / P3b: off (sparse traffic would penalise honest peers)
    meshMessageDeliveriesWeight: 0,
    meshMessageDeliveriesDecay: 0.5,
    meshMessageDeliveriesCap: 1,
    meshMessageDeliveriesThreshold: 1,
    meshMessageDeliveriesWindow: 10,
    meshMessageDeliveriesActivation: 5000,
    meshFailurePenaltyWeight: 0,
    meshFailurePenaltyDecay: 0.5,
    // P4: invalid messages
    invalidMessageDeliveriesWeight: INVALID_MESSAGE_WEIGHT,
    invalidMessageDeliveriesDecay: 0.99,
  };
}

export function peerScoreParams(topics: string[], appScore: (peerId: string) => number): Partial<PeerScoreParams> {
  const t: Record<string, TopicScoreParams> = {};
  for (const topic of topics) t[topic] = topicScoreParams();
  return {
    topics: t,
    topicScoreCap: 10,
    appSpecificScore: appScore,
    appSpecificWeight: 10,
    // many devnet peers share one host: do not punish loopback colocation
    IPColocationFactorWeight: -5,
    IPColocationFactorThreshold: 10,
    IPColocationFactorWhitelist: new Set(["127.0.0.1", "::1"]),
    behaviourPenaltyWeight: -10,
    behaviourPenaltyThreshold: 0,
    behaviourPenaltyDecay: 0.9,
    decayInterval: 1000,
    decayToZero: 0.01,
    retainScore: 3600 * 1000,
  };
}
