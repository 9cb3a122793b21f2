/**
 * The signature length, written once for keys.ts (which re-exports it) and for the verifiers keys.ts
 * imports (ed25519.ts, ecdsa.ts), which cannot import keys.ts back.
 */

/** Every signature anchord checks: ed25519's R ‖ S, or ECDSA's compact r ‖ s. */
export const SIGNATURE_LENGTH = 64;
