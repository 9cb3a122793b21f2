/**
 * Stopping when the process that started us is gone. `npm run devnet` and `npx anchord …` put npm
 * (and, for npx, a shell) between the user and anchord; a `kill <npm's pid>` reaches npm, which
 * passes it on to its shell, and the shell does not pass it on: anchord was left running as an
 * orphan, holding its ports. When npm launched us (it sets `npm_command`), or when asked
 * (`--exit-with-parent`, which the devnet gives its nodes), a change of parent counts as a stop.
 * Not otherwise: `nohup anchord start … &` must outlive its shell.
 */
export const PARENT_POLL_MS = 1_000;

export function launchedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return env["npm_command"] !== undefined;
}

/**
 * Calls `gone` once the parent process is no longer `parent` (polled every PARENT_POLL_MS; the
 * timer does not keep the process alive). Take `parent` when the command starts: a parent that
 * died during a long start (a ledger opening, a format upgrade) would otherwise be missed.
 */
export function watchParent(parent: number, gone: () => void): void {
  if (process.ppid !== parent) {
    gone();
    return;
  }
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, PARENT_POLL_MS);
  timer.unref();
}
