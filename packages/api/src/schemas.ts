/** JSON Schemas (OpenAPI 3.1 / JSON Schema 2020-12) of the API's bodies, shared by the route table. */
import { ADDRESS_LENGTH } from "@anchord/crypto";
import { TxType } from "@anchord/protocol";

export type JsonSchema = { readonly [k: string]: unknown };

export const ref = (name: keyof typeof SCHEMAS): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const int64 = (description: string): JsonSchema => ({ type: "integer", format: "int64", description });
const base58 = (description: string): JsonSchema => ({ type: "string", description, pattern: "^[1-9A-HJ-NP-Za-km-z]+$" });
const address: JsonSchema = base58(`Account address, base58 (${ADDRESS_LENGTH} bytes)`);

/** The fields of a block header: `BlockHeader` is these, `Block` adds its transactions, fee and size. */
const HEADER_PROPERTIES: Record<string, JsonSchema> = {
  version: { type: "integer" },
  timestamp: { type: "integer", format: "int64" },
  reference: base58("Id of the parent block"),
  "nxt-consensus": {
    type: "object",
    properties: { "base-target": int64("Base target"), "generation-signature": base58("Generation signature") },
  },
  generator: address,
  generatorPublicKey: base58("Generator's public key"),
  signature: base58("Generator's signature"),
  id: base58("Block id"),
  transactionCount: { type: "integer" },
  transactionsRoot: base58("RFC 6962 Merkle root (BLAKE2b-256) of the signed transactions"),
  height: { type: "integer" },
};

const transactionProperties = {
  type: {
    type: "integer",
    enum: Object.values(TxType),
    description: `${TxType.Genesis} genesis, ${TxType.Transfer} transfer, ${TxType.Lease} lease, ${TxType.CancelLease} cancel lease, ${TxType.Anchor} anchor`,
  },
  version: { type: "integer" },
  id: base58("Transaction id: base58(blake2b256(body))"),
  sender: address,
  senderKeyType: { type: "string", enum: ["ed25519", "secp256k1", "secp256r1"] },
  senderPublicKey: base58("Public key of the sender"),
  fee: int64("Fee in base units (10^-8 token)"),
  timestamp: { type: "integer", format: "int64", description: "ms since the Unix epoch" },
  proofs: { type: "array", items: base58("Signature"), description: "proofs[0] is the sender's signature" },
  recipient: address,
  amount: int64("Amount in base units"),
  leaseId: base58("Id of the lease transaction"),
  anchors: { type: "array", items: base58("Anchored bytes") },
  attachment: base58("Attachment bytes"),
} as const;

export const SCHEMAS = {
  Error: {
    type: "object",
    required: ["error", "message"],
    properties: {
      error: { type: "integer", description: "LTO error code (0 when LTO has none): 1 bad JSON, 2 bad API token, 101 invalid signature, 102 invalid address, 108 invalid public key, 111 non-positive amount, 112 state check failed / insufficient fee, 114 transaction to yourself, 115 sender not in wallet, 301 block not found, 303 timestamp out of range, 311 transaction not found" },
      message: { type: "string" },
    },
    example: { error: 102, message: "invalid address (checksum)" },
  },
  ChainpointRecord: {
    type: "object",
    required: ["@context", "type", "targetHash", "merkleRoot", "proof", "anchors"],
    properties: {
      "@context": { type: "string", const: "https://w3id.org/chainpoint/v2" },
      type: { type: "string", const: "ChainpointSHA256v2" },
      targetHash: { type: "string", pattern: "^[0-9a-f]{64}$", description: "SHA-256 digest, lower-case hex" },
      merkleRoot: { type: "string", pattern: "^[0-9a-f]{64}$", description: "Chainpoint v2 root: the hash itself (stored directly in the anchor transaction)" },
      proof: { type: "array", maxItems: 0, description: "Chainpoint v2 steps from targetHash to merkleRoot: none" },
      anchors: {
        type: "array",
        items: {
          type: "object",
          required: ["type", "sourceId"],
          properties: {
            type: { type: "string", description: "`<network name>DataTransaction`" },
            sourceId: base58("Id of the anchoring transaction"),
          },
        },
      },
      block: { type: "object", properties: { height: { type: "string", pattern: "^[0-9]+$" } }, description: "Present once the transaction is in a block" },
      transaction: { type: "object", properties: { position: { type: "string", pattern: "^[0-9]+$" } }, description: "0-based position in the block; present once in a block" },
    },
  },
  Chainpoint: {
    type: "object",
    required: ["chainpoint"],
    properties: { chainpoint: { $ref: "#/components/schemas/ChainpointRecord" } },
  },
  ChainpointNotFound: {
    type: "object",
    required: ["chainpoint"],
    properties: { chainpoint: { type: "null" } },
  },
  AnchorRequest: {
    oneOf: [
      {
        type: "object",
        required: ["chainpoint"],
        properties: {
          chainpoint: {
            type: "object",
            required: ["targetHash"],
            properties: { targetHash: { type: "string", pattern: "^[0-9a-fA-F]{64}$" } },
            additionalProperties: true,
          },
        },
      },
      {
        type: "object",
        required: ["hash"],
        properties: {
          hash: { type: "string", description: "SHA-256 digest (32 bytes) in `encoding`" },
          encoding: { type: "string", enum: ["hex", "base58", "base64"], default: "hex" },
        },
      },
    ],
  },
  Balance: {
    type: "object",
    required: ["address", "confirmations", "balance"],
    properties: { address, confirmations: { type: "integer" }, balance: int64("Balance in base units") },
  },
  BalanceDetails: {
    type: "object",
    required: ["address", "regular", "generating", "available", "effective", "leasing"],
    properties: {
      address,
      regular: int64("Owned, including amounts leased out"),
      generating: int64("Minimum effective balance over the last 1000 blocks"),
      available: int64("regular minus amounts leased out"),
      effective: int64("available plus amounts leased to the account"),
      leasing: int64("Amount leased out"),
    },
  },
  AddressAmount: {
    type: "object",
    required: ["address", "balance"],
    properties: { address, balance: int64("Generating balance in base units") },
  },
  BaseTarget: { type: "object", required: ["baseTarget"], properties: { baseTarget: int64("Base target of the last block") } },
  Transaction: {
    type: "object",
    required: ["type", "id", "timestamp"],
    properties: transactionProperties,
    additionalProperties: true,
  },
  ConfirmedTransaction: {
    allOf: [
      { $ref: "#/components/schemas/Transaction" },
      {
        type: "object",
        required: ["height"],
        properties: {
          height: { type: "integer" },
          status: { type: "string", enum: ["active", "canceled"], description: "Leases only" },
        },
      },
    ],
  },
  SignedTransaction: {
    allOf: [
      { $ref: "#/components/schemas/Transaction" },
      { type: "object", required: ["signature"], properties: { signature: base58("The sender's signature (proofs[0])") } },
    ],
  },
  BroadcastTransaction: {
    type: "object",
    required: ["type", "senderPublicKey", "fee", "timestamp", "proofs"],
    properties: transactionProperties,
    additionalProperties: true,
    description: "A signed transaction as the LTO client library sends it; `signature` accepted for v1, `txId` as an alias of `leaseId`",
  },
  LeaseRequest: {
    type: "object",
    required: ["sender", "recipient", "amount"],
    properties: {
      sender: { ...address, description: "Wallet address that signs the lease" },
      recipient: { type: "string", description: "Recipient address, base58, optionally prefixed `address:`" },
      amount: int64("Amount leased, base units (> 0)"),
      fee: int64("Fee in base units; the network minimum when omitted"),
    },
  },
  CancelLeaseRequest: {
    type: "object",
    required: ["sender"],
    properties: {
      sender: { ...address, description: "Wallet address that signed the lease" },
      leaseId: base58("Id of the lease to cancel"),
      txId: base58("Alias of leaseId"),
      fee: int64("Fee in base units; the network minimum when omitted"),
    },
  },
  Block: {
    type: "object",
    required: ["id", "height", "timestamp", "reference", "signature", "transactionCount"],
    properties: {
      ...HEADER_PROPERTIES,
      transactions: { type: "array", items: { $ref: "#/components/schemas/Transaction" } },
      fee: int64("Sum of the transaction fees"),
      blocksize: { type: "integer", description: "Encoded size in bytes" },
    },
    additionalProperties: true,
  },
  Blocks: { type: "array", items: { $ref: "#/components/schemas/Block" } },
  BlockHeader: {
    type: "object",
    required: ["version", "id", "height", "timestamp", "reference", "signature", "generator", "generatorPublicKey", "transactionCount", "transactionsRoot"],
    properties: HEADER_PROPERTIES,
  },
  BlockHeaders: { type: "array", items: { $ref: "#/components/schemas/BlockHeader" } },
  HashStatus: {
    type: "object",
    required: ["hash", "status"],
    properties: {
      hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
      status: { type: "string", enum: ["unknown", "pending", "confirmed", "final"] },
      sourceId: base58("Id of the anchoring transaction (pending, confirmed, final; absent while reanchoring)"),
      reanchoring: {
        type: "boolean",
        description: "pending only: this node acknowledged the hash and is anchoring it again (the transaction it answered with left the pool and the chain)",
      },
      error: { type: "string", description: "with reanchoring: why the last attempt failed (it is tried again after the next block)" },
      height: { type: "integer", description: "confirmed and final" },
      confirmations: { type: "integer", description: "confirmed and final: blocks from the anchoring block to the tip, both counted" },
    },
  },
  ProofBundle: {
    type: "object",
    description: "A self-contained proof (docs/proofs.md); check it with @anchord/verify or `anchord verify`",
    required: ["type", "version", "hash", "chainpoint", "network", "transaction", "merkle", "block", "confirmations", "final", "issuedAt"],
    properties: {
      type: { type: "string", const: "anchordProof" },
      version: { type: "integer", const: 1 },
      hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
      chainpoint: { $ref: "#/components/schemas/ChainpointRecord" },
      network: {
        type: "object",
        required: ["name", "chainId", "genesisBlockId", "maxRollback"],
        properties: { name: { type: "string" }, chainId: { type: "string" }, genesisBlockId: base58("Id of the genesis block"), maxRollback: { type: "integer" } },
      },
      transaction: {
        type: "object",
        required: ["id", "bytes", "anchorIndex"],
        properties: { id: base58("Transaction id"), bytes: { type: "string", contentEncoding: "base64", description: "The signed transaction" }, anchorIndex: { type: "integer" } },
      },
      merkle: {
        type: "object",
        required: ["hash", "leafIndex", "treeSize", "path"],
        properties: { hash: { type: "string", const: "blake2b-256" }, leafIndex: { type: "integer" }, treeSize: { type: "integer" }, path: { type: "array", items: base58("Sibling hash") } },
      },
      block: {
        type: "object",
        required: ["height", "id", "timestamp", "generator", "generatorAddress", "transactionsRoot", "header"],
        properties: {
          height: { type: "integer" },
          id: base58("Block id"),
          timestamp: { type: "integer", format: "int64" },
          generator: base58("Generator's public key"),
          generatorAddress: address,
          transactionsRoot: base58("Merkle root of the block's transactions"),
          header: { type: "string", contentEncoding: "base64", description: "Header (149 bytes) and signature (64 bytes)" },
        },
      },
      confirmations: { type: "integer" },
      final: { type: "boolean", description: "The block is deeper than the maximum rollback: no node will undo it" },
      issuedAt: { type: "integer", format: "int64" },
    },
  },
  Transactions: { type: "array", items: { $ref: "#/components/schemas/Transaction" } },
  ConfirmedTransactions: { type: "array", items: { $ref: "#/components/schemas/ConfirmedTransaction" } },
  Height: { type: "object", required: ["height"], properties: { height: { type: "integer" } } },
  NodeStatus: {
    type: "object",
    required: ["blockchainHeight", "stateHeight", "updatedTimestamp", "updatedDate"],
    properties: {
      blockchainHeight: { type: "integer" },
      stateHeight: { type: "integer" },
      updatedTimestamp: { type: "integer", format: "int64" },
      updatedDate: { type: "string", format: "date-time" },
      chainId: { type: "string", description: "The network's chain id (one character; the devnet's is D)" },
      network: { type: "string", description: "The network's name (chainpoint anchors are typed `<network>DataTransaction`)" },
      lastBlockId: base58("Id of the last block"),
      genesisBlockId: base58("Id of the genesis block"),
      lastBlockGenerator: address,
      finalHeight: {
        type: "integer",
        description: "The highest height final on this node's chain: no rollback ever goes below it (0 until the chain is longer than the maximum rollback); it can be above height − maxRollback after a switch to a shorter fork",
      },
      score: { type: "integer", description: "The chain's cumulative score: the sum over its blocks of 2^64 ÷ base target (grows past 2^64)" },
      peers: { type: "integer", description: "Connected peers" },
      rejectedPeers: {
        type: "array",
        description: "Peers recently turned away as another network",
        items: { type: "object", properties: { peerId: { type: "string" }, reason: { type: "string" }, at: { type: "string", format: "date-time", description: "When it was turned away (ISO time)" } } },
      },
      poolSize: { type: "integer", description: "Unconfirmed transactions in the pool" },
      syncing: { type: "boolean", description: "A peer has a better chain and the node is fetching it" },
      peerId: { type: ["string", "null"], description: "libp2p peer id (null without p2p)" },
      version: { type: "string" },
      storage: { type: "string", enum: ["ok", "failed"], description: "failed: a store failed; the node takes no writes (503) until restarted" },
      generator: {
        type: ["object", "null"],
        description: "The wallet's forging accounts (null when the node does not generate; shown to the operator only: the node's own origin or the API token)",
        properties: {
          accounts: {
            type: "array",
            items: { type: "object", properties: { address, generatingBalance: int64("Generating balance"), minimum: int64("Minimum generating balance"), forges: { type: "boolean" } } },
          },
          nextSlot: { type: ["object", "null"] },
          paused: { type: ["string", "null"], description: "Why the generator makes no block now (storage failed, waiting for the first sync round, catching up with a peer); null while it may forge" },
        },
      },
      anchoringAccount: { type: ["string", "null"], description: "The wallet account that signs POST /hash anchors (shown to the operator only)" },
    },
    additionalProperties: true,
  },
  Version: { type: "object", required: ["version"], properties: { version: { type: "string" } } },
  Peers: {
    type: "object",
    required: ["peers"],
    properties: {
      peers: {
        type: "array",
        items: { type: "object", required: ["address", "peerId"], properties: { address: { type: "string" }, peerId: { type: "string" } }, additionalProperties: true },
      },
    },
  },
  Addresses: { type: "array", items: address },
  // history, leases, recent state, signing (issue 13)
  AddressTransactions: { type: "array", minItems: 1, maxItems: 1, items: { $ref: "#/components/schemas/ConfirmedTransactions" }, description: "One array of transactions (the Waves / LTO shape)" },
  TransactionStatuses: {
    type: "array",
    items: {
      type: "object",
      required: ["id", "status"],
      properties: { id: base58("Transaction id"), status: { type: "string", enum: ["confirmed", "unconfirmed", "not_found"] }, height: { type: "integer" }, confirmations: { type: "integer" } },
    },
  },
  LeaseInfo: {
    type: "object",
    required: ["id", "originTransactionId", "sender", "recipient", "amount", "height", "status"],
    properties: {
      id: base58("Lease id (the lease transaction's id)"),
      originTransactionId: base58("The lease transaction's id"),
      sender: address,
      recipient: address,
      amount: int64("Amount leased, base units"),
      height: { type: "integer", description: "Height of the lease transaction" },
      status: { type: "string", enum: ["active", "canceled"] },
      cancelHeight: { type: "integer", description: "canceled: height of the cancel" },
      cancelTransactionId: base58("canceled: id of the cancel transaction"),
    },
  },
  LeaseInfos: { type: "array", items: { $ref: "#/components/schemas/LeaseInfo" } },
  LeaseIds: { type: "object", required: ["ids"], properties: { ids: { type: "array", items: base58("Lease id") } } },
  AddressValidity: { type: "object", required: ["address", "valid"], properties: { address: { type: "string" }, valid: { type: "boolean" } } },
  FeeAmount: { type: "object", required: ["feeAssetId", "feeAmount"], properties: { feeAssetId: { type: "null" }, feeAmount: int64("Minimum fee, base units") } },
  UnsignedTransaction: {
    type: "object",
    required: ["type"],
    properties: { ...transactionProperties, sender: { ...address, description: "A wallet address of the node (default: its anchoring account)" } },
    description: "A transaction without proofs: the node fills in senderPublicKey, timestamp and (when absent) the minimum fee, and signs it",
  },
  BalanceDetailsAtHeight: {
    type: "object",
    required: ["address", "height", "regular", "generating", "available", "effective", "leasing"],
    properties: {
      address,
      height: { type: "integer" },
      regular: int64("Owned, including leased out"),
      generating: int64("Minimum effective balance over the generating window ending at height"),
      available: int64("regular − leasing"),
      effective: int64("available + leased in"),
      leasing: int64("Leased out"),
    },
  },
} as const satisfies Record<string, JsonSchema>;
