/**
 * Test vectors produced by the real client library @ltonetwork/lto v0.16.15 (node v20.20.2), copied
 * from shared/vectors/lto-sdk-0.16.15.txt, and ids from the LTO node's own unit-test fixtures
 * (lto-public-chain: LeaseTransactionSpecification, CancelLeaseTransactionSpecification,
 * AnchorTransactionSpecification), whose proofs are placeholders (ids only).
 */

export const ACCOUNT1 = {
  seed: "satisfy sustain shiver skill betray mother appear pupil coconut weasel firm top puzzle monkey seek",
  privateSeedHex: "a7283b8b53d0bd0a05f1998b4e47787f6ac2f108dda77f55551e8e5b2fe460b6",
  publicKey: "3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2",
  address: "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW",
};
export const ACCOUNT2 = {
  seed: "manage manual recall harvest series desert melt police rose hollow moral pledge kitten position add",
  publicKey: "GjSacB6a5DFNEHjDSmn724QsrRStKYzkahPH67wyrhAY",
  address: "3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1",
};
export const SECP256K1_ACCOUNT = {
  publicKey: "yBUTnq2bLomxJSrQTMgD9CLKLLzKxZCMTH2naizoBpcZ",
  address: "3Mt2yi6H2pcjC3GRuCHMDzJX8Cgn8QqU4Ud",
};

export interface TxVector {
  name: string;
  /** Which seed account signed proofs[0] (null: the secp256k1 account, signed outside the SDK). */
  signer: "account1" | null;
  sponsor: "account2" | null;
  /** JSON.stringify(tx) exactly as PublicNode.broadcast() POSTs it. */
  json: string;
  id: string;
  bodyHex: string;
  bodyBase58: string;
  proofsHex: string[];
}

export const TX_VECTORS: TxVector[] = [
  {
    name: "lease v3",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":8,\"version\":3,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":100000000,\"timestamp\":1700000000000,\"recipient\":\"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1\",\"amount\":100000000,\"proofs\":[\"gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD\"]}",
    id: "JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y",
    bodyHex: "0803540000018bcfe568000126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000005f5e10001546d9001bf1317f66675a979398f1f850a317a9ed701b5464a0000000005f5e100",
    bodyBase58: "C8ccc2XXvAFe3js9kmSrdZDLttmKWWEEPQmPA4GvimCNZLh8MXM5kvXpEk6PzgFXSSLpUeJt583KJMCEeHGQD8uM1RAcYpGrFxnRwg6gQAd2LpsHYKvbR",
    proofsHex: ["21cb6cc7975f64381f9149ac32490955dabbcc2177cc421dee997ee966202b0975b80268789b0db7c30712554669138442c1a157e7246f506643e872a1919e00"],
  },
  {
    name: "lease v2",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":8,\"version\":2,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":100000000,\"timestamp\":1700000000000,\"recipient\":\"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1\",\"amount\":100000000,\"proofs\":[\"iLivpMhwUzuvA813X6EoMxkGRjuKdJDDEpDTxAJ37tcbBmBdki3Sj3aEQkG4iVhY9oDYZpLjf1BDpDXjfZgoPXA\"]}",
    id: "FrhqQARgirZ5Lgbuv819ikJKihrDBhSZChHTsRhiNsBE",
    bodyHex: "08020026e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef01546d9001bf1317f66675a979398f1f850a317a9ed701b5464a0000000005f5e1000000000005f5e1000000018bcfe56800",
    bodyBase58: "3XBHLAMTnHFVcW6cGdgBMaS5Lqn4neuwhRD5LRqgXvvfh9sEygCDDn123qiFwFkSt9S2eRD7gh5vPKYdYqsUii2hcSyX3wuin86UEoDjiGT9LLxZzWBZ",
    proofsHex: ["23a66c4934eb8cc4bba36e6d4413eba438c19d924035dbd4e6c20e69823d77494174b346a36d83dcf779e5af4ae1f9faeaff003785ee54b0caec5ce6e4c8850d"],
  },
  {
    name: "cancel v3",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":9,\"version\":3,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":100000000,\"timestamp\":1700000060000,\"proofs\":[\"S39FBbKbwmZakZ2PpzouxV8nAz9B1zjvLKWV7mFSDZa1ynRxrq7mQQqkHKhLkRu2S8A6rXSTAm9aDufjKAa97Wv\"],\"leaseId\":\"JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y\"}",
    id: "8FkJMCv9LbSLH9yjEDyAHeMasaD2KTS5XrdraFtQhTHy",
    bodyHex: "0903540000018bcfe652600126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000005f5e10004946a0269ddbb79fde24a3a70e2e51b9fdbaed657923a3cc972ab5d10c2b80d",
    bodyBase58: "eGyiRd1XJwKy1NJi4gNMEUQrCKczgoxmAx9NFXFgPg6utgqSgBypPQhBTfDBnJLmonHFJekVJg2cZe6Qzzuk8oG1tdT1neUQNyfdDpkFk8xfsbB48U",
    proofsHex: ["1597454bfda41a7ada7e3b6a7d8ba4b1327b18fc20863c01f2eaa111f5aa09e3ca9a6439550eac27dca3a25fa6c7f91d7159ec5ffaebec206734543b1958c80f"],
  },
  {
    name: "cancel v2",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":9,\"version\":2,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":100000000,\"timestamp\":1700000060000,\"proofs\":[\"uufDjjyBRySEiJdWcCG3kLXrexTJRXSE4yqXxesjTNgeyFoUJ4m4PvHy8V3GYLYn8ZKVriF2uc7P3BFCmUjWhDf\"],\"leaseId\":\"JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y\"}",
    id: "Gw3n73zYEfyHa87tqySAFh45N3JkTgePP5mtAntX4vZ2",
    bodyHex: "09025426e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000005f5e1000000018bcfe6526004946a0269ddbb79fde24a3a70e2e51b9fdbaed657923a3cc972ab5d10c2b80d",
    bodyBase58: "9ScSCPMN7epeTmHpLeTRoCvMQsm2c2R1QnEUKjkNNqNEUMyRPfH1z9FN8d6vnZSmvXmzm9hqzfAuoqywgrQ1i6trV7Fo1HHwamJSSKUPVAxBb5dbA",
    proofsHex: ["2da032d9adbe9218aa70b383f8e7f646b63fc314321a58ce83e5ce5f487fd43dd171df1a0a61865f6b4b68a05a7a3e58a6784bf090a41b312eb2aae597666406"],
  },
  {
    name: "anchor v3",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":15,\"version\":3,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":35000000,\"timestamp\":1700000120000,\"anchors\":[\"42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5\"],\"proofs\":[\"41B5PqTmbc1TM6NdUUtTUjzoMN6iD3A6MwQvWQXFyxJWCDrBZR8s917dQnR7bUBEXpmQyQPtygTZ6xMM5cbKjUei\"]}",
    id: "D5kor4zjNUAbBF1DjxrTRwasDnbCZJ14p5dVRjyQJQGA",
    bodyHex: "0f03540000018bcfe73cc00126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000002160ec0000100202cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    bodyBase58: "81J6diQtrF9w7c32YCSERmpXNiYHxiY7Z22L5UCC99vEFwLiUDgHuty5nghQh16C7gDwmW3f2oUNSxBbxWnthHvot6o6Qb3aM4iYnEhpi7y1yfDzcyL7TGrX",
    proofsHex: ["963367ee01d9adac6ef2fd6ddaa8af3f2a3ba5da07bf4c9f8c8efadca14ee1e4eac10f95c915a03412ad0305009708798634c2f9447b3ad243571128e4d2c507"],
  },
  {
    name: "anchor v1",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":15,\"version\":1,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":35000000,\"timestamp\":1700000120000,\"anchors\":[\"42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5\"],\"proofs\":[\"592myoUDJUSYLGY3L3ceyAqZsiBdDi3mUNcPrkN52eyKJWpUVRt8Ci8Zh3Jp4QexBD9UWxdcnxXV8okMto9A9cQM\"]}",
    id: "7jJAqEo5pvqxeVKKBX9W2975DhQMWTqgAskNNXMD6Ve9",
    bodyHex: "0f0126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef000100202cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240000018bcfe73cc00000000002160ec0",
    bodyBase58: "MqveKNP1badSWTzCPtFqJJctfwMH3qT9TjoKppJ1xGask32nPRahsoVDnn7JTRuiMuqfFYkXTrEXrRv2A1T2NjrLsEArSmTwnKdbQcSMLt3vaqvswmqdR",
    proofsHex: ["cefe4829f951482e1cbdd149d05209c761d4b05fcd1f54482d0a3c55c76cc3ace7b1a8c2c644399bfbe49c4585eabe7bef2805ef00c057be5ec6496525129e06"],
  },
  {
    name: "anchor v3 two anchors",
    signer: "account1",
    sponsor: null,
    json: "{\"type\":15,\"version\":3,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"fee\":45000000,\"timestamp\":1700000120000,\"anchors\":[\"42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5\",\"5skCzKGD9vg9fsddgDw3XYhdSR4dK7FUMFThVyrdnBne\"],\"proofs\":[\"3U4M9ptTy5K5GLHedNwvg4YoC4Qvet7NvFVuqavW4ZpKuEkPGfTzy8Yo5efsBDXCrartjdAWRn6zTTKivEq6WNC1\"]}",
    id: "8wPDPPJrkqBkpC5mH3pFsyqAEtQr6AZWDce4QcFvkY6S",
    bodyHex: "0f03540000018bcfe73cc00126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000002aea540000200202cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240020486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7",
    bodyBase58: "hYKkkxPV9QuRwGHdnyXWAEcF6L9Ps5L1BaXQMwofhFsoyQYFVXVAhgmVACzqtQ2X3c1ZVrHB6ukNXAJRvdXbk4aMxT1pPnwe3ouXXxYVktDwFPxARbViCjbZpSJnTCqeZNjnWosW6wr4rMVuUrFQrSiBUiLPV7pshj8aUn",
    proofsHex: ["7b5e17494fbe7cf99943efe1324277be151df58758717cdabc18fcf376c683ecd9714fc22865d3992e68ce208789b36771aba9d51852e3a30caffd00e9b41f0a"],
  },
  {
    name: "lease v3 sponsored",
    signer: "account1",
    sponsor: "account2",
    json: "{\"type\":8,\"version\":3,\"sender\":\"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"3ct1eeZg1ryzz24VHk4CigJxW6Adxh7Syfm459CmGNv2\",\"sponsor\":\"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1\",\"sponsorKeyType\":\"ed25519\",\"sponsorPublicKey\":\"GjSacB6a5DFNEHjDSmn724QsrRStKYzkahPH67wyrhAY\",\"fee\":100000000,\"timestamp\":1700000000000,\"recipient\":\"3MyuPwbiobZFnZzrtyY8pkaHoQHYmyQxxY1\",\"amount\":100000000,\"proofs\":[\"gBvw9YqSdnX4BLfx2nTHjrVCyF4GHLAopLnCsRFxXXspG4kAfCtoeRGTTxFqN3TchmNKJcnEKqTfxyKqjY7uQVD\",\"JxqwYvbLH8AeK3MZdw5ddYZxcrLqcbP4n5udVFKeiQxzRjhBWUoeJCxvGep4SQ5Xy92DdHrVK5efcqEdFDCDnco\"]}",
    id: "JstZWGnpXsXsqCLvHvpvFuqmU6XL4sYeKuamMzWM22Y",
    bodyHex: "0803540000018bcfe568000126e86176189975fcd29ea0b912a9f7b8f8ef668815fe131ff1507a2664d273ef0000000005f5e10001546d9001bf1317f66675a979398f1f850a317a9ed701b5464a0000000005f5e100",
    bodyBase58: "C8ccc2XXvAFe3js9kmSrdZDLttmKWWEEPQmPA4GvimCNZLh8MXM5kvXpEk6PzgFXSSLpUeJt583KJMCEeHGQD8uM1RAcYpGrFxnRwg6gQAd2LpsHYKvbR",
    proofsHex: ["21cb6cc7975f64381f9149ac32490955dabbcc2177cc421dee997ee966202b0975b80268789b0db7c30712554669138442c1a157e7246f506643e872a1919e00", "0f7d8ea318b4da308c5759fc810302e7535ffea6eeebae30b0a45c33f35de34d465c45da762777350ea234bf38362049104454e9196fef80fe3250e7d945cf00"],
  },
  {
    name: "anchor v3 secp256k1",
    signer: null,
    sponsor: null,
    json: "{\"type\":15,\"version\":3,\"sender\":\"3Mt2yi6H2pcjC3GRuCHMDzJX8Cgn8QqU4Ud\",\"senderKeyType\":\"secp256k1\",\"senderPublicKey\":\"yBUTnq2bLomxJSrQTMgD9CLKLLzKxZCMTH2naizoBpcZ\",\"fee\":35000000,\"timestamp\":1700000120000,\"anchors\":[\"42TEXg1vFAbcJ65y7qdYG9iCPvYfy3NDdVLd75akX2P5\"],\"proofs\":[\"2hs4u3WymiKRkHYHYAfiBVeLxV89vWi54wi5yjRuhmHPkQzFZag1WXgAQYq5G7GRstP1u3eCY14tDBVzCtrARhSg\"]}",
    id: "3D7BQB1GVsfoYLxbb3fSoJYR4bAwAQp13ok4AKJN9atp",
    bodyHex: "0f03540000018bcfe73cc0020342bd53c5a5d7f5d1825e66eaaa80ba0df06f39a8e9498922736f8ea15cf4127a0000000002160ec0000100202cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    bodyBase58: "XvJTs3nTrMURr9dyQdvS8ReuwE7gymU49uvrzWWbh9Z2Stv9e1CU7PpvK3YWvMT8C2cTCNxeAqxu4A3VKG6w6kE25aH71qep8ZvR1Udq1ULz9qo5z5aNnDnts",
    proofsHex: ["5541824fe18c01dc96c55736199337f984d88426c100a1d082731d15bc94ee972e3335bea063c1c4c2c80b8b9521b07e8e36d8f68fefbdae95186949b536dba1"],
  },
];

/** Section 9: the SDK's own unit test (seed "test"). */
export const SDK_UNIT_TEST = {
  seed: "test",
  json: "{\"type\":8,\"version\":3,\"sender\":\"3N4mZ1qTrjWKnzBwAxscf7kfkoCs2HGQhJG\",\"senderKeyType\":\"ed25519\",\"senderPublicKey\":\"2KduZAmAKuXEL463udjCQkVfwJkBQhpciUC4gNiayjSJ\",\"fee\":100000000,\"timestamp\":1519862400000,\"recipient\":\"3NACnKFVN2DeFYjspHKfa2kvDqnPkhjGCD2\",\"amount\":100000000,\"proofs\":[\"Fo7CkFeEbRqirb3iewRRs1rzDfUPfGNf7pSt7zWcvdXMJvDWwrsYwtiasr3y1ixsB6coHMgCZSvxV9W4xsorCLX\"]}",
  id: "67tvLJ29jwMt59KCh5wKMvSyqbdkAJDZgNkzTFtBBoBC",
};

/**
 * Section 8: LTO node fixtures (chain T). Placeholder proofs, so only ids (and for cancel v2 the body,
 * from the node's Java client tests) are checked. Sponsored v3 fixtures share the sponsor below.
 */
const FIXTURE_PK = "FM5ojNqW7e9cZ9zhPYGkpSP1Pcd8Z3e3MNKYVS5pGJ8Z";
const FIXTURE_SENDER = "3Mr31XDsqdktAdNQCdSd8ieQuYoJfsnLVFg";
export const FIXTURE_SPONSOR = { publicKey: "22wYfvU2op1f3s4RMRL2bwWBmtHCAB6t3cRwnzRJ1BNz", address: "3Mw6BfpSRkgCi8LQMQRKayvEb1fqKpDbaVY" };
const ANCHOR_A = "264h1cUrahDxWCPJBAPgtf6A9f3dNhkrLAeBUdHU8A5NDtksaumZ4WmsAU2NiF4eTCubLpYAd9D6xgBosPv34inu";
const ANCHOR_B = "31CS3LiQKFAo5sipHDc4vKCDJD4iQ5BkVwLEqjEaoBjZgQ6t6KbwPNpYxgEnbhtbbLmJcuKCxnJeP2zoDT1L1YYc";
const LEASE_ID = "DJWkQxRyJNqWhq9qSQpK2D4tsrct6eZbjSv3AH4PSha6";
const RECIPIENT = "3N5XyVTp4kEARUGRkQTuCVN6XjV4c5iwcJt";

export interface NodeFixture {
  name: string;
  id: string;
  sponsored: boolean;
  bodyBase58?: string;
  json: Record<string, unknown>;
}

const common = { sender: FIXTURE_SENDER, senderKeyType: "ed25519", senderPublicKey: FIXTURE_PK };

export const NODE_FIXTURES: NodeFixture[] = [
  {
    name: "lease v2",
    id: "3EuU5xQrkA6juSGHszb8TJgxbfmoz6Bdrcvu8HQuu2dT",
    sponsored: false,
    json: { type: 8, version: 2, ...common, fee: 1000000, timestamp: 1526646497465, amount: 10000000, recipient: RECIPIENT },
  },
  {
    name: "lease v3",
    id: "EGmBEd2Gy56PbThvUNLMvvt6MQNXgaMh2B3s3TT7r5yX",
    sponsored: true,
    json: { type: 8, version: 3, ...common, fee: 1000000, timestamp: 1526646497465, amount: 10000000, recipient: RECIPIENT },
  },
  {
    name: "cancel lease v2",
    id: "4nvUUiQjTH7D2LFyzaxs8JwaZYZHDggJgq1iP99TvVDM",
    sponsored: false,
    bodyBase58:
      "9ScU6Wx17Vqw6zjXMGMudEVKFyEHuNH8775MDW8P9H7uUoLn5Xvx7aGMCCFRp5jyHL62mKspzr8547kYzmQ6q6b6qyjXCVxHZsdRNj614244JbzKp",
    json: { type: 9, version: 2, ...common, fee: 1000000, timestamp: 1526646300260, leaseId: LEASE_ID, chainId: 84 },
  },
  {
    name: "cancel lease v3",
    id: "4WXJ6EnavyNLp5aov6bS63wmrpKG75d1hqHHXNGtM2KK",
    sponsored: true,
    json: { type: 9, version: 3, ...common, fee: 1000000, timestamp: 1526646300260, leaseId: LEASE_ID },
  },
  {
    name: "anchor v1",
    id: "Aa5LusYsEDYVkWozd1BYRLVqbwWeJid3xiBrd2KetM5j",
    sponsored: false,
    json: { type: 15, version: 1, ...common, fee: 100000, timestamp: 1526911531530, anchors: [ANCHOR_A] },
  },
  {
    name: "anchor v3",
    id: "DoQgKL1vp9sHgwJv3BU4FqbJVKbLHd76pnnCT5LZRin1",
    sponsored: true,
    json: { type: 15, version: 3, ...common, fee: 100000, timestamp: 1526911531530, anchors: [ANCHOR_A, ANCHOR_B] },
  },
];
