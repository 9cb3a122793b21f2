/**
 * The API token, kept in this page's memory only: never written to storage, cookies or the URL,
 * gone when the tab is closed or reloaded. Sent only to the node that served the page.
 */
import { h } from "./lib.js";

let token = "";

export const getToken = (): string => token;

/** A labelled password field bound to the session token. */
export function tokenField(id: string): HTMLLabelElement {
  const input = h("input", { id, type: "password", autocomplete: "off", spellcheck: "false", value: token, "aria-describedby": `${id}-help` });
  input.addEventListener("input", () => (token = input.value.trim()));
  return h(
    "label",
    { for: id },
    "API token",
    input,
    h("small", { id: `${id}-help`, class: "muted" }, "Needed when the node is configured with one. Kept in this page only (not stored); reloading forgets it."),
  );
}

/** Why a write was refused, in words. */
export function writeRefusal(status: number, message: string): string {
  if (status === 401)
    return token
      ? "The node refused this API token (401). Check the token the node was started with (--api-token)."
      : "This node requires an API token to anchor or sign (401). Enter the token the node was started with (--api-token); only its operator has it.";
  if (status === 429) return "Too many requests to this node just now (429); try again in a few seconds.";
  return `${message} (HTTP ${status})`;
}
