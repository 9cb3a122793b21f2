/**
 * Secrets and the forms they could leak in: a seed phrase as written, and the keys it derives
 * (the 32-byte ed25519 seed and the 64-byte secret key) in hex, base58, base64 and base64url; API
 * tokens and wallet passwords as written; the libp2p peer key. A scanner finds any of them in a
 * set of texts (logs, HTTP bodies, files).
 */
import { readFileSync } from "node:fs";
import { base58Encode, keyPairFromSeed } from "@anchord/crypto";

export interface Needle {
  /** What it is, e.g. "seed of node-0: privateSeed hex" (never the secret itself). */
  label: string;
  value: string;
}

function encodings(label: string, bytes: Uint8Array): Needle[] {
  const b = Buffer.from(bytes);
  return [
    { label: `${label} hex`, value: b.toString("hex") },
    { label: `${label} HEX`, value: b.toString("hex").toUpperCase() },
    { label: `${label} base58`, value: base58Encode(bytes) },
    { label: `${label} base64`, value: b.toString("base64").replace(/=+$/, "") },
    { label: `${label} base64url`, value: b.toString("base64url") },
  ];
}

/** A seed phrase and every key it derives, in every usual encoding. */
export function seedNeedles(label: string, seed: string): Needle[] {
  const kp = keyPairFromSeed(seed);
  return [
    { label: `${label}: seed phrase`, value: seed },
    { label: `${label}: seed phrase (JSON-escaped)`, value: JSON.stringify(seed).slice(1, -1) },
    ...encodings(`${label}: 32-byte private seed`, kp.privateSeed),
    ...encodings(`${label}: 64-byte secret key`, kp.secretKey),
  ];
}

/** A libp2p peer key file (protobuf: type, then the 64-byte ed25519 private key ‖ public key). */
export function peerKeyNeedles(label: string, path: string): Needle[] {
  const file = readFileSync(path);
  const key = file.subarray(file.length - 64);
  return [...encodings(`${label}: peer key file`, file), ...encodings(`${label}: peer private key`, key.subarray(0, 32)), ...encodings(`${label}: peer key pair`, key)];
}

export function plainNeedle(label: string, value: string): Needle {
  return { label, value };
}

export interface Hit {
  needle: string;
  source: string;
  /** A little context around the hit, with the secret itself masked. */
  context: string;
}

/** Every occurrence of any needle in any text. */
export function findSecrets(texts: readonly { source: string; text: string }[], needles: readonly Needle[]): Hit[] {
  const hits: Hit[] = [];
  for (const n of needles) {
    if (n.value.length < 8) throw new Error(`needle "${n.label}" is too short to search for`);
    for (const t of texts) {
      let at = t.text.indexOf(n.value);
      while (at >= 0 && hits.length < 100) {
        const context = t.text.slice(Math.max(0, at - 60), at) + "«SECRET»" + t.text.slice(at + n.value.length, at + n.value.length + 60);
        hits.push({ needle: n.label, source: t.source, context });
        at = t.text.indexOf(n.value, at + 1);
      }
    }
  }
  return hits;
}
