/**
 * The real client library against a real devnet: `node packages/cli/dist/bin.js devnet` with three
 * node processes (1 s blocks, an API token), driven by @ltonetwork/lto 0.16.15 exactly as an
 * application would use it (LTO, PublicNode with its X-API-Key, Transfer / Lease / CancelLease /
 * Anchor signed and broadcast by the library). Nothing in the library is patched or mocked.
 * Needs a built dist/ (`npx tsc -b`).
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Binary, LTO } from "@ltonetwork/lto";
import type { Account } from "@ltonetwork/lto/accounts";
import { PublicNode } from "@ltonetwork/lto/node";
import type { ISigner } from "@ltonetwork/lto/types";
import { Anchor, CancelLease, Lease, Transfer, type Transaction as SdkTx } from "@ltonetwork/lto/transactions";
import { base58Encode, blake2b256, toHex } from "@anchord/crypto";
import type { JsonValue } from "@anchord/protocol";
import { waitFor } from "../utils/cluster.js";
import { startDevnet, type Devnet, type DevnetAccountInfo } from "../utils/devnet-process.js";
import { big, expectError, get, getJson, post } from "../utils/http.js";

type Obj = Record<string, JsonValue>;

const API_TOKEN = "lto-client-e2e-token";
const UNIT = 100_000_000; // 1 token
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ nodes: 3, blockTime: 1, apiToken: API_TOKEN });
}, 150_000);

afterAll(async () => {
  await devnet?.stop();
}, 60_000);

/** Polls node `url` until the transaction is in a block there; its /transactions/info. */
async function confirmedOn(url: string, id: string, timeoutMs = 45_000): Promise<Obj> {
  let info: Obj | undefined;
  await waitFor(`${id} confirmed at ${url}`, async () => {
    const r = await get(`${url}/transactions/info/${id}`);
    if (r.status === 200) info = r.json as Obj;
    else expectError(r, 404, 311);
    return info !== undefined;
  }, timeoutMs, 200);
  return info!;
}

/**
 * The library's ECDSA signing, called with a plain Uint8Array. Account.sign wraps the message in
 * the library's Binary (a Uint8Array subclass whose constructor ignores offsets), and the installed
 * @noble/hashes 1.8 hashes it through subarray views: "offset is out of bounds" for any message
 * longer than one SHA-256 block. That is the library's own defect (node-independent); its signer
 * itself (account.cypher) is used unchanged.
 */
function ecdsaSigner(a: Account): ISigner {
  return { address: a.address, publicKey: a.publicKey, keyType: a.keyType, sign: (m) => new Binary(a.cypher.createSignature(typeof m === "string" ? new TextEncoder().encode(m) : Uint8Array.from(m))) };
}

/** The id the library's own bytes give: base58(blake2b256(toBinary())). */
const idOf = (tx: SdkTx): string => base58Encode(blake2b256(tx.toBinary()));

interface Details {
  regular: bigint;
  available: bigint;
  effective: bigint;
  leasing: bigint;
}
async function details(url: string, address: string): Promise<Details> {
  const d = await getJson<Obj>(`${url}/addresses/balance/details/${address}`);
  return { regular: big(d["regular"]), available: big(d["available"]), effective: big(d["effective"]), leasing: big(d["leasing"]) };
}

describe("@ltonetwork/lto against a running anchord devnet", () => {
  let lto: LTO;
  let node: PublicNode;
  let faucetInfo: DevnetAccountInfo;
  let faucet: Account;
  let account: Account;
  const urls = (): string[] => devnet.nodes.map((n) => n.api);

  beforeAll(() => {
    lto = new LTO("D");
    node = new PublicNode(devnet.nodes[0]!.api, API_TOKEN);
    lto.node = node;
    faucetInfo = devnet.accounts.find((a) => a.node === null)!;
    faucet = lto.account({ seed: faucetInfo.seed });
    account = lto.account();
  });

  it("talks to the devnet: status and version through the library, the devnet description matches", async () => {
    expect(devnet.description.chainId).toBe("D");
    expect(devnet.nodes).toHaveLength(3);
    const status = (await node.status()) as { blockchainHeight: number; stateHeight: number };
    expect(status.blockchainHeight).toBeGreaterThanOrEqual(1);
    expect(status.stateHeight).toBe(status.blockchainHeight);
    expect(await node.version()).toMatch(/^anchord /);
    // the library derives the devnet's genesis accounts from their seeds
    expect(faucet.address).toBe(faucetInfo.address);
    expect(faucet.publicKey).toBe(faucetInfo.publicKey);
    expect(lto.isValidAddress(account.address)).toBe(true);
    expect(lto.isValidAddress(devnet.nodes[0]!.address)).toBe(true);
    for (const n of devnet.nodes) expect(await getJson(`${n.api}/wallet/addresses`)).toEqual([n.address]);
    // the nodes form one network
    await waitFor("every node has both peers", async () => {
      const peers = await Promise.all(urls().map((u) => getJson<{ peers: unknown[] }>(`${u}/peers/connected`)));
      return peers.every((p) => p.peers.length === 2);
    }, 30_000, 250);
    expect(await lto.getBalance(account)).toBe(0);
  });

  it("transfer, lease to node 0's wallet, cancel and anchor, all signed and broadcast by the library", async () => {
    const wallet0 = devnet.nodes[0]!.address;
    const amount = 500 * UNIT;

    // the faucet funds the fresh account
    const transfer = new Transfer(account.address, amount, "funding from the faucet").signWith(faucet);
    const sentTransfer = (await transfer.broadcastTo(node)) as Transfer;
    expect(sentTransfer.id).toBe(idOf(transfer));
    expect(sentTransfer.type).toBe(4);
    expect(sentTransfer.amount).toBe(amount);
    expect(sentTransfer.recipient).toBe(account.address);
    expect(sentTransfer.sender).toBe(faucet.address);
    expect(sentTransfer.proofs).toEqual(transfer.proofs);
    const infoT = await confirmedOn(devnet.nodes[1]!.api, sentTransfer.id!);
    expect(infoT["attachment"]).toBe(base58Encode(new TextEncoder().encode("funding from the faucet")));
    await confirmedOn(devnet.nodes[0]!.api, sentTransfer.id!);
    expect(await lto.getBalance(account)).toBe(amount);
    expect(await lto.getBalance(account.address)).toBe(amount);

    // the account leases to node 0's wallet (LTO.lease signs and broadcasts)
    const leaseAmount = 300 * UNIT;
    const before0 = await details(devnet.nodes[0]!.api, wallet0);
    expect(before0.effective - before0.available).toBe(0n); // nothing leased to it yet
    const lease = await lto.lease(account, wallet0, leaseAmount);
    expect(lease.id).toBe(idOf(lease));
    expect(lease.type).toBe(8);
    const infoL = await confirmedOn(devnet.nodes[0]!.api, lease.id!);
    expect(infoL).toMatchObject({ type: 8, sender: account.address, recipient: wallet0, amount: leaseAmount, status: "active" });
    expect(await lto.getBalance(account)).toBe(amount - UNIT); // the fee; leased amounts stay owned
    const acct = await details(devnet.nodes[0]!.api, account.address);
    expect(acct).toEqual({ regular: BigInt(amount - UNIT), leasing: BigInt(leaseAmount), available: BigInt(amount - UNIT - leaseAmount), effective: BigInt(amount - UNIT - leaseAmount) });
    const w0 = await details(devnet.nodes[0]!.api, wallet0);
    expect(w0.effective - w0.available).toBe(BigInt(leaseAmount)); // leaseIn
    expect(w0.leasing).toBe(0n);
    const effective = big((await getJson<Obj>(`${devnet.nodes[0]!.api}/addresses/effectiveBalance/${wallet0}`))["balance"]);
    expect(effective).toBe(w0.effective);
    const active = await getJson<Obj[]>(`${devnet.nodes[0]!.api}/leasing/active/${wallet0}`);
    expect(active.map((l) => l["id"])).toEqual([lease.id]);
    // the library rebuilds what the node serves
    const fromNode = (await node.get(`/transactions/info/${lease.id!}`)) as { id: string; amount: number; height: number };
    expect(fromNode.amount).toBe(leaseAmount);
    expect(fromNode.height).toBe(infoL["height"]);

    // the account cancels its lease
    const cancel = await lto.cancelLease(account, lease.id!);
    expect(cancel.id).toBe(idOf(cancel));
    expect(cancel.type).toBe(9);
    await confirmedOn(devnet.nodes[0]!.api, cancel.id!);
    expect((await getJson<Obj>(`${devnet.nodes[0]!.api}/transactions/info/${lease.id!}`))["status"]).toBe("canceled");
    const afterCancel = await details(devnet.nodes[0]!.api, account.address);
    expect(afterCancel).toEqual({ regular: BigInt(amount - 2 * UNIT), leasing: 0n, available: BigInt(amount - 2 * UNIT), effective: BigInt(amount - 2 * UNIT) });
    const w0c = await details(devnet.nodes[0]!.api, wallet0);
    expect(w0c.effective - w0c.available).toBe(0n);
    expect(await getJson(`${devnet.nodes[0]!.api}/leasing/active/${wallet0}`)).toEqual([]);

    // the account anchors a SHA-256 hash with an Anchor transaction it signs
    const digest = new Uint8Array(createHash("sha256").update(`lto client e2e ${account.address}`).digest());
    const anchor = new Anchor(digest).signWith(account);
    expect(anchor.fee).toBe(35_000_000);
    const sentAnchor = (await anchor.broadcastTo(node)) as Anchor;
    expect(sentAnchor.id).toBe(idOf(anchor));
    expect(sentAnchor.anchors.map((a) => a.base58)).toEqual([base58Encode(digest)]);
    const infoA = await confirmedOn(devnet.nodes[2]!.api, sentAnchor.id!);
    // the chainpoint record on another node names the library's transaction
    const record = await getJson<{ chainpoint: Obj }>(`${devnet.nodes[2]!.api}/hash/${toHex(digest)}`);
    expect(record.chainpoint).toEqual({
      "@context": "https://w3id.org/chainpoint/v2",
      type: "ChainpointSHA256v2",
      targetHash: toHex(digest),
      merkleRoot: toHex(digest),
      proof: [],
      anchors: [{ type: `${devnet.description.network}DataTransaction`, sourceId: sentAnchor.id }],
      block: { height: String(infoA["height"]) },
      transaction: { position: expect.stringMatching(/^\d+$/) },
    });

    // final balances on every node
    const final = amount - 2 * UNIT - 35_000_000;
    for (const url of urls()) {
      await confirmedOn(url, sentAnchor.id!);
      expect(await details(url, account.address)).toEqual({ regular: BigInt(final), leasing: 0n, available: BigInt(final), effective: BigInt(final) });
    }
    expect(await lto.getBalance(account)).toBe(final);
  });

  it("versions without a chain id refused with a clear 400; ECDSA keys, a v2 cancel and sponsorship, as the library builds them, on a node the library did not submit to", async () => {
    const k1 = lto.account({ keyType: "secp256k1" });
    const r1 = lto.account({ keyType: "secp256r1" });
    const e = lto.account();
    const node1 = new PublicNode(devnet.nodes[1]!.api); // no API key: broadcasting needs none
    const url1 = devnet.nodes[1]!.api;
    const wallet2 = devnet.nodes[2]!.address;
    const send = async <T extends SdkTx>(tx: T): Promise<T> => {
      const out = await tx.broadcastTo(node1);
      expect(out.id).toBe(idOf(tx));
      return out;
    };

    // The devnet refuses versions whose body names no chain (transfer v2, lease v2, anchor v1: they
    // could be replayed from another network), with a 400 that says which version to use
    const refused = async (tx: SdkTx): Promise<void> => {
      await expect(tx.broadcastTo(node1)).rejects.toMatchObject({ data: { message: expect.stringContaining("use version 3") } });
    };
    const v2Transfer = new Transfer(e.address, 100 * UNIT);
    v2Transfer.version = 2;
    await refused(v2Transfer.signWith(faucet));

    // funding: v3 transfers to the three accounts
    const funding = [new Transfer(e.address, 100 * UNIT).signWith(faucet), new Transfer(k1.address, 100 * UNIT).signWith(faucet), new Transfer(r1.address, 100 * UNIT).signWith(faucet)];
    // the library's ECDSA accounts sign through ecdsaSigner (see there)
    const k1s = ecdsaSigner(k1);
    const r1s = ecdsaSigner(r1);
    const funded = [];
    for (const t of funding) funded.push(await send(t));
    for (const t of funded) await confirmedOn(url1, t.id!);
    expect((await getJson<Obj>(`${url1}/transactions/info/${funded[0]!.id!}`))["version"]).toBe(3);

    // secp256k1 sends, secp256r1 leases and cancels, the ed25519 account a v3 lease with a v2 cancel
    // (its body names the chain) and a v3 anchor after its v1 anchor is refused
    const k1Transfer = await send(new Transfer(e.address, 10 * UNIT).signWith(k1s));
    const r1Lease = await send(new Lease(wallet2, 20 * UNIT).signWith(r1s));
    const r1Cancel = await send(new CancelLease(r1Lease.id!).signWith(r1s));
    const v2Lease = new Lease(wallet2, 5 * UNIT);
    v2Lease.version = 2;
    await refused(v2Lease.signWith(e));
    const eLeaseSent = await send(new Lease(wallet2, 5 * UNIT).signWith(e));
    const eCancel = new CancelLease(eLeaseSent.id!);
    eCancel.version = 2;
    const eCancelSent = await send(eCancel.signWith(e));
    const digest = new Uint8Array(createHash("sha256").update(`v1 anchor ${e.address}`).digest());
    const v1 = new Anchor(digest);
    v1.version = 1;
    await refused(v1.signWith(e));
    const v1Sent = await send(new Anchor(digest).signWith(e));
    // the faucet sponsors (pays the fee of) an anchor by the secp256k1 account
    const digest2 = new Uint8Array(createHash("sha256").update(`sponsored anchor ${k1.address}`).digest());
    const sponsored = await send(new Anchor(digest2).signWith(k1s).sponsorWith(faucet));
    expect(sponsored.sponsor).toBe(faucet.address);

    const all = [k1Transfer, r1Lease, r1Cancel, eLeaseSent, eCancelSent, v1Sent, sponsored];
    for (const t of all) await confirmedOn(url1, t.id!);
    const info = async (t: SdkTx): Promise<Obj> => getJson<Obj>(`${url1}/transactions/info/${t.id!}`);
    expect(await info(k1Transfer)).toMatchObject({ version: 3, senderKeyType: "secp256k1", senderPublicKey: k1.publicKey, sender: k1.address });
    expect(await info(r1Lease)).toMatchObject({ senderKeyType: "secp256r1", status: "canceled" });
    expect(await info(eLeaseSent)).toMatchObject({ version: 3, status: "canceled" });
    expect(await info(eCancelSent)).toMatchObject({ version: 2, leaseId: eLeaseSent.id });
    expect(await info(v1Sent)).toMatchObject({ version: 3, anchors: [base58Encode(digest)] });
    expect(await info(sponsored)).toMatchObject({ sponsor: faucet.address, sponsorKeyType: "ed25519", senderKeyType: "secp256k1" });
    const rec = await getJson<{ chainpoint: Obj }>(`${url1}/hash/${toHex(digest)}`);
    expect(rec.chainpoint["anchors"]).toEqual([{ type: `${devnet.description.network}DataTransaction`, sourceId: v1Sent.id }]);

    const expected: [Account, number][] = [
      [e, 100 * UNIT + 10 * UNIT - 2 * UNIT - 35_000_000],
      [k1, 100 * UNIT - 10 * UNIT - UNIT], // the sponsored anchor cost it nothing
      [r1, 100 * UNIT - 2 * UNIT],
    ];
    for (const [a, balance] of expected) {
      expect(await lto.getBalance(a)).toBe(balance);
      expect(await details(url1, a.address)).toEqual({ regular: BigInt(balance), available: BigInt(balance), effective: BigInt(balance), leasing: 0n });
    }
    expect(await getJson(`${url1}/leasing/active/${wallet2}`)).toEqual([]);
  });

  it("anchors through POST /hash on node 0 (the library's X-API-Key) and verifies on node 2 with height and position", async () => {
    const digest = createHash("sha256").update("lto client e2e: POST /hash").digest();
    const hex = digest.toString("hex");
    // without the token: refused, as the library reports it
    const anonymous = new PublicNode(devnet.nodes[0]!.api);
    await expect(anonymous.post("/hash", { hash: hex })).rejects.toMatchObject({ data: { error: 2 } });
    expectError(await post(`${devnet.nodes[0]!.api}/hash`, { hash: hex }), 401, 2);
    // with it (PublicNode sends X-API-Key)
    const pending = (await node.post("/hash", { hash: hex, encoding: "hex" })) as { chainpoint: Obj };
    const sourceId = (pending.chainpoint["anchors"] as Obj[])[0]!["sourceId"] as string;
    expect(pending.chainpoint["targetHash"]).toBe(hex);
    // the interface document's form with the Bearer header, on the same node: same record, same transaction
    const again = await post(`${devnet.nodes[0]!.api}/hash`, { chainpoint: { targetHash: hex } }, { authorization: `Bearer ${API_TOKEN}` });
    expect(again.status).toBe(200);
    // write routes of a CLI node are rate limited per client (default 600 per 10 s), and say so
    expect(again.headers.get("ratelimit-policy")).toMatch(/^600;w=10$/);
    expect(((again.json as { chainpoint: Obj }).chainpoint["anchors"] as Obj[])[0]!["sourceId"]).toBe(sourceId);

    const url2 = devnet.nodes[2]!.api;
    let record: { chainpoint: Obj } | undefined;
    await waitFor("hash confirmed on node 2", async () => {
      const r = await get(`${url2}/hash/${hex}`);
      if (r.status === 200) record = r.json as { chainpoint: Obj };
      else expect(r.text).toBe('{"chainpoint":null}');
      return record !== undefined;
    }, 45_000, 200);
    const cp = record!.chainpoint;
    expect(cp["anchors"]).toEqual([{ type: `${devnet.description.network}DataTransaction`, sourceId }]);
    const height = (cp["block"] as Obj)["height"] as string;
    const position = (cp["transaction"] as Obj)["position"] as string;
    const info = await getJson<Obj>(`${url2}/transactions/info/${sourceId}`);
    expect(String(info["height"])).toBe(height);
    expect(info["type"]).toBe(15);
    expect(info["sender"]).toBe(devnet.nodes[0]!.address); // signed by node 0's wallet
    expect(info["anchors"]).toContain(base58Encode(digest));
    const block = await getJson<Obj>(`${url2}/blocks/at/${height}`);
    expect((block["transactions"] as Obj[])[Number(position)]!["id"]).toBe(sourceId);
    // the library reads the same record through its own client
    expect(await new PublicNode(url2).get(`/hash/${base58Encode(digest)}/encoding/base58`)).toEqual(record);
  });
});
