/** `anchord devnet`'s banner of funded accounts: balances in tokens, exact to the base unit. */
import { describe, expect, it } from "vitest";
import { fundedAccountsBanner, type DevnetAccount } from "../src/commands/devnet.js";

const account = (balance: bigint): DevnetAccount => ({ seed: "seed", address: "3FPJ1vmxSGgq6Ut7xde4EGWiSwswxksttC9", publicKey: "key", balance, node: null });

describe("the devnet's funded accounts banner", () => {
  it("shows balances in tokens, grouped, with their fractions (1.5 tokens is not 1)", () => {
    const rows = fundedAccountsBanner([account(150_000_000n), account(1_000_000_000_000_000n), account(1n)], 1).split("\n");
    expect(rows[2]).toContain(" 1.5 ");
    expect(rows[3]).toContain(" 10,000,000 ");
    expect(rows[4]).toContain(" 0.00000001 ");
  });
});
