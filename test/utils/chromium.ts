/** The Chromium the browser tests drive (playwright-core brings no browser of its own). */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Arguments every browser test starts Chromium with: headless, a fresh profile, no connections anywhere but the test's. */
export const CHROMIUM_ARGS: readonly string[] = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** $CHROMIUM_PATH, or chromium / chromium-browser / google-chrome on the PATH (`.ci/run` installs Debian's). */
export function findChromium(): string {
  const fromEnv = process.env["CHROMIUM_PATH"];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    try {
      const p = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
      if (p) return p;
    } catch {
      // not this one
    }
  }
  throw new Error("no Chromium found: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH");
}
