/**
 * A minimal EventSource-style client for tests: reads a text/event-stream with fetch, parses it
 * as the HTML spec says (id / event / data fields, comments, blank line ends an event), remembers
 * the last event id, and can be closed and resumed with `Last-Event-ID` like a browser does.
 */
export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  lastEventId: string | undefined;
  status = 0;
  ended = false;
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();

  private constructor(readonly url: string) {}

  /** Connects; resolves once the response headers arrived (events keep arriving in the background). */
  static async connect(url: string, lastEventId?: string): Promise<SseClient> {
    const c = new SseClient(url);
    c.lastEventId = lastEventId;
    const res = await fetch(url, { headers: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId }, signal: c.abort.signal });
    c.status = res.status;
    if (!res.body || res.status !== 200) {
      c.ended = true;
      await res.text().catch(() => undefined);
      return c;
    }
    c.done = c.read(res.body).catch(() => undefined).finally(() => {
      c.ended = true;
    });
    return c;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    let id: string | undefined;
    let event = "";
    let data: string[] = [];
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (data.length) {
            if (id !== undefined) this.lastEventId = id;
            this.events.push({ id, event: event || "message", data: data.join("\n") });
          }
          id = undefined;
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
    }
  }

  /** Events of one type, data parsed as JSON. */
  of<T = Record<string, unknown>>(type: string): T[] {
    return this.events.filter((e) => e.event === type).map((e) => JSON.parse(e.data) as T);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}
