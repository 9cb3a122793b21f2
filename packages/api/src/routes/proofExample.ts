/**
 * A real proof bundle (built by packages/verify/test/fixture.ts: block 2 of a test chain, the
 * second of three anchor transactions) for the OpenAPI document and docs/proofs.md; the API's
 * proofs test checks that it verifies.
 */
export const EXAMPLE_PROOF_BUNDLE = {
  "type": "anchordProof",
  "version": 1,
  "hash": "030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dc",
  "chainpoint": {
    "@context": "https://w3id.org/chainpoint/v2",
    "type": "ChainpointSHA256v2",
    "targetHash": "030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dc",
    "merkleRoot": "030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dc",
    "proof": [],
    "anchors": [
      {
        "type": "ChainDataTransaction",
        "sourceId": "B9Kj1xxy1pX7PBibT8oEQc2tsKNHSg92UHM1GqXQqDUf"
      }
    ],
    "block": {
      "height": "2"
    },
    "transaction": {
      "position": "1"
    }
  },
  "network": {
    "name": "Chain",
    "chainId": "T",
    "genesisBlockId": "DkKDbM3vHX5kntkdn2w4yM29AHY5SakEpLm6v35vVszi",
    "maxRollback": 100
  },
  "transaction": {
    "id": "B9Kj1xxy1pX7PBibT8oEQc2tsKNHSg92UHM1GqXQqDUf",
    "bytes": "AQAAAHoPA1QAAAGXdCDcAgFWauKXJlmFcjEAPlbAau8h22dKiUloS9QZNLrEPe8ajAAAAAACFg7AAAIAIAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIACADChEYHyYtNDtCSVBXXmVsc3qBiI+WnaSrsrnAx87V3AABAEAj8eQndGf74Kf2eAVeawCGMYgefr3vXt8ChRqPVqEbXqJxEZ7fO7xlrZ7YF6hp4kf4hI1saLlDAmxsb5UOQh0B",
    "anchorIndex": 1
  },
  "merkle": {
    "hash": "blake2b-256",
    "leafIndex": 1,
    "treeSize": 3,
    "path": [
      "EkViuMo3noEbz8BaMNKDcUwdKXT6Ziy3323dNn6Z9spE",
      "ikpSNU5EKxBcJXbMyHByqQDVKx9wN43S8UDWCgVK3sJ"
    ]
  },
  "block": {
    "height": 2,
    "id": "BSpFZnF5vRnnEE1M8eGYEnM5VTJdWbyxXsRrjPd8VRTP",
    "timestamp": 1750000060000,
    "generator": "AyD89guyPAkuAuoo9RMytfcVoDY3D3cLESYTiBcbcLsw",
    "generatorAddress": "3Mvd85zpFen1T7rcr4Y1LYFVC7T9HWVLdoi",
    "transactionsRoot": "9fRRrS4EmeAmy6yZ4aUnkTuSB1RRTs3tH59BH5EFpKsL",
    "header": "AgAAAZd0IcZgvWTQ6O5vjmAedgzMhrFCXBIGu2ohvnxBaL2OwUnOT0sAAAAACSmf8wEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBlB9qXHInl7Rzz8ZCHN1Ec/VISFVfk/a5fzh+8816Eq4AAAADgLUwAkPWMAOzZ7FHpsTzvLzV9rh0NpgQl/OzeMGLcEeDvuxCSPGVlm8Up697Q/vBAyLP708X+5WXQUXafnJSLayyGdGfUFZr2lkQhf1NrGJaehm9zDT/BaEhDPAhMgMI"
  },
  "confirmations": 3,
  "final": false,
  "issuedAt": 1750000200000
} as const;
