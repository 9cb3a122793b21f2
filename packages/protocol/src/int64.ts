/**
 * The int64 bound (INT64_MAX, 2^63−1): written once in @anchord/crypto beside the int64 encoder,
 * which checks it too; the protocol's range checks import it from here.
 */
export { INT64_MAX } from "@anchord/crypto";
