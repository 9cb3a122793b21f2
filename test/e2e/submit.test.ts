/**
 * The client library's other path against a real node: `PublicNode.submit()` of an unsigned
 * transfer (no sender: the node's anchoring account signs) and of one with a sender the wallet
 * holds both land in blocks; /transactions/sign signs without pooling; the small routes users
 * expect (status of several ids, address validation, fee calculation) answer in their shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PublicNode } from "@ltonetwork/lto/node";
import { Lease, Transfer } from "@ltonetwork/lto/transactions";
import type { Node } from "@anchord/node";
import { startTestNode, testAccount, testGenesis, waitFor } from "../utils/cluster.js";
import { big, expectError, get, getJson, post, postJson } from "../utils/http.js";

const TOKEN = "submit-e2e-token";
const auth = { "X-API-Key": TOKEN };
const gen = testAccount("sub-g", 100_000n);
const user = testAccount("sub-u", 1_000n);
const other = testAccount("sub-o", 10n);
const genesis = testGenesis({ accounts: [gen, user, other], generators: [gen], blockDelayMs: 500 });

let node: Node;
let api: string;
beforeAll(async () => {
  node = await startTestNode({ genesis, seeds: [gen.seed, user.seed], apiToken: TOKEN, name: "submit" });
  api = node.apiUrl!;
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

async function confirmed(id: string): Promise<number> {
  let height = 0;
  await waitFor(`${id} in a block`, async () => {
    const [s] = await getJson<{ status: string; height?: number }[]>(`${api}/transactions/status?id=${id}`);
    height = s!.height ?? 0;
    return s!.status === "confirmed";
  }, 30_000, 100);
  return height;
}

describe("POST /transactions/submit and /sign, and the small routes", () => {
  it("the client library's node.submit() of a transfer lands", async () => {
    const lib = new PublicNode(api, TOKEN);
    const before = big((await getJson(`${api}/addresses/balance/${other.address}`))["balance"]);
    const sent = await lib.submit(new Transfer(other.address, 12_345));
    expect(sent.id).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(sent.sender).toBe(node.anchoring.account()!.address);
    const height = await confirmed(sent.id!);
    expect(height).toBeGreaterThan(1);
    expect(big((await getJson(`${api}/addresses/balance/${other.address}`))["balance"])).toBe(before + 12_345n);

    // a sender the wallet holds signs; the library's own fee is kept
    const fromUser = new Transfer(other.address, 777);
    fromUser.sender = user.address;
    const sent2 = await lib.submit(fromUser);
    expect(sent2.sender).toBe(user.address);
    expect(sent2.fee).toBe(100_000_000);
    await confirmed(sent2.id!);

    // no token: 401; a sender the wallet does not hold: 115
    expectError(await post(`${api}/transactions/submit`, { type: 4, recipient: other.address, amount: 1 }), 401, 2);
    expectError(await post(`${api}/transactions/submit`, { type: 4, sender: other.address, recipient: user.address, amount: 1 }, auth), 400, 115);
    expectError(await post(`${api}/transactions/submit`, { type: 12, recipient: user.address }, auth), 400);
  }, 60_000);

  it("/transactions/sign signs without pooling; status, validate and calculateFee answer in their shapes", async () => {
    const lease = new Lease(other.address, 5_000);
    const signed = await postJson<{ id: string; proofs: string[]; sender: string; fee: number }>(`${api}/transactions/sign`, { ...JSON.parse(JSON.stringify(lease)), sender: user.address }, auth);
    expect(signed.proofs).toHaveLength(1);
    expect(signed.sender).toBe(user.address);
    const unknown = "2".repeat(44);
    expect(await getJson(`${api}/transactions/status?id=${signed.id}&id=${unknown}`)).toEqual([
      { id: signed.id, status: "not_found" },
      { id: unknown, status: "not_found" },
    ]);
    await postJson(`${api}/transactions/broadcast`, signed);
    const [pooled] = await postJson<{ status: string }[]>(`${api}/transactions/status`, { ids: [signed.id] });
    expect(["unconfirmed", "confirmed"]).toContain(pooled!.status);
    const height = await confirmed(signed.id);
    const [s] = await getJson<{ confirmations: number; height: number }[]>(`${api}/transactions/status?id=${signed.id}`);
    expect(s!.height).toBe(height);
    expect(s!.confirmations).toBeGreaterThanOrEqual(1);
    expectError(await get(`${api}/transactions/status`), 400, 1);
    expectError(await get(`${api}/transactions/status?id=nope`), 400, 1);

    expect(await getJson(`${api}/addresses/validate/${user.address}`)).toEqual({ address: user.address, valid: true });
    expect(await getJson(`${api}/addresses/validate/3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq`)).toEqual({ address: "3JtiLvHGDaFbE6MGzQMCcNtXqpyDgDEopMq", valid: false });
    expect(await getJson(`${api}/addresses/validate/nonsense`)).toEqual({ address: "nonsense", valid: false });

    expect(await postJson(`${api}/transactions/calculateFee`, { type: 4, recipient: other.address, amount: 1 })).toEqual({ feeAssetId: null, feeAmount: 100_000_000 });
    expect(await postJson(`${api}/transactions/calculateFee`, { type: 15, anchors: ["1", "2", "3"] })).toEqual({ feeAssetId: null, feeAmount: 55_000_000 });
    expectError(await post(`${api}/transactions/calculateFee`, { type: 12 }), 400);
  }, 60_000);
});
