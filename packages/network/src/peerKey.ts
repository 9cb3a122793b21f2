/**
 * The node's libp2p identity: an Ed25519 private key stored as libp2p protobuf bytes in a file of
 * mode 0600, created on first use, so the peer id survives restarts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generateKeyPair, generateKeyPairFromSeed, privateKeyFromProtobuf, privateKeyToProtobuf } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import type { PrivateKey } from "@libp2p/interface";
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { writeFileDurably } from "./durableFile.js";

export interface PeerKey {
  privateKey: PrivateKey;
  peerId: string;
  /** True when the file did not exist and was written by this call. */
  created: boolean;
}

const FILE_MODE = 0o600;
const MAX_KEY_FILE_BYTES = 16 * 1024;

function readKeyFile(file: string): PeerKey {
  const st = fs.statSync(file);
  if (!st.isFile() || st.size > MAX_KEY_FILE_BYTES) {
    throw new AnchordError(ErrorCode.STORAGE, "peer key path is not a key file", { path: file });
  }
  if ((st.mode & 0o077) !== 0) fs.chmodSync(file, FILE_MODE);
  let privateKey: PrivateKey;
  try {
    privateKey = privateKeyFromProtobuf(new Uint8Array(fs.readFileSync(file)));
  } catch (e) {
    throw new AnchordError(ErrorCode.STORAGE, "peer key file is corrupt (not a libp2p protobuf private key)", {
      path: file,
      cause: String(e),
    });
  }
  return { privateKey, peerId: peerIdFromPrivateKey(privateKey).toString(), created: false };
}

/**
 * Loads the key at `file`, or creates it (Ed25519; from `seed` when given, 32 bytes, for reproducible
 * devnets). An existing file is never overwritten; a corrupt one is an error.
 */
export async function loadOrCreatePeerKey(file: string, seed?: Uint8Array): Promise<PeerKey> {
  // an empty file is what a power cut could leave of a key an older anchord wrote on its first
  // start (no fsync): no identity was ever kept there, so one is made
  if (fs.existsSync(file) && !(fs.statSync(file).isFile() && fs.statSync(file).size === 0)) return readKeyFile(file);
  fs.rmSync(file, { force: true });
  if (seed !== undefined && seed.length !== 32) {
    throw new AnchordError(ErrorCode.INVALID_FIELD, "peer key seed must be 32 bytes");
  }
  const privateKey = seed === undefined ? await generateKeyPair("Ed25519") : await generateKeyPairFromSeed("Ed25519", seed);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // exclusive: fail rather than clobber a key another process wrote meanwhile; durably, as a
    // partial key file (a power cut right after the first start) would stop the node for good
    writeFileDurably(file, privateKeyToProtobuf(privateKey), { mode: FILE_MODE, exclusive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return readKeyFile(file);
    throw new AnchordError(ErrorCode.STORAGE, "cannot write peer key file", { path: file, cause: String(e) });
  }
  return { privateKey, peerId: peerIdFromPrivateKey(privateKey).toString(), created: true };
}
