/** GET /events: the chain as Server-Sent Events (sse.ts). */
import { AnchordError, ErrorCode } from "@anchord/protocol";
import { EVENT_WINDOW, type ApiBackend } from "../backend.js";
import { parseAddressText, READ_COST } from "../params.js";
import { queryOf, queryOnce } from "../query.js";
import { errorDoc, type RouteDef } from "../route.js";
import { DEFAULT_STREAM_LIMITS, STREAM_HEADERS, StreamRegistry, streamEvents } from "../sse.js";

const registries = new WeakMap<ApiBackend, StreamRegistry>();
const registryOf = (backend: ApiBackend): StreamRegistry => {
  let r = registries.get(backend);
  if (r === undefined) registries.set(backend, (r = new StreamRegistry()));
  return r;
};

/** An event id (`<run>-<seq>`, events.ts in the node); a bare number (an id of an older version) reads as another run's. */
const ID_RE = /^(?:[0-9a-z]{1,16}-)?(?:0|[1-9][0-9]{0,15})$/;

const EXAMPLE_STREAM = [
  "retry: 1000",
  "",
  "id: 1kq0v7fq-1",
  "event: block",
  'data: {"height":12,"id":"5NFTy2K1FTxxYr1Nkofn22kx1JJj7qajqU7WPUVXyNph","generator":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW","transactionCount":1,"timestamp":1700000060000}',
  "",
  "id: 1kq0v7fq-2",
  "event: tx",
  'data: {"id":"FV2GXF59R1BTP9kkkPvm11VfEUqGVL5wRFtkHQBphjJQ","type":15,"height":12,"sender":"3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW"}',
  "",
  "id: 1kq0v7fq-3",
  "event: anchor",
  'data: {"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","sourceId":"FV2GXF59R1BTP9kkkPvm11VfEUqGVL5wRFtkHQBphjJQ","height":12,"final":false}',
  "",
  "id: 1kq0v7fq-4",
  "event: rollback",
  'data: {"height":11}',
  "",
  "",
].join("\n");

export const eventRoutes: RouteDef[] = [
  {
    method: "get",
    path: "/events",
    operationId: "events",
    tag: "events",
    summary: "Live events as Server-Sent Events: block, rollback, tx, anchor",
    description:
      "`text/event-stream` for `EventSource` and `curl -N`. Events: `block` {height, id, generator, transactionCount, timestamp}; " +
      "`rollback` {height}: blocks above `height` were removed (the new fork's blocks follow); `tx` {id, type, height, sender} for each transaction of a block; " +
      "`anchor` {hash (hex), sourceId, height, final}: once when its block is applied, again with `final: true` when the block is final. " +
      "Every event has an `id`, `<run>-<seq>`: a tag of this run of this node and a number increasing by one. Reconnecting with `Last-Event-ID` (or `?lastEventId=`) delivers every event after it, in order, exactly once, " +
      `while it is among the node's last ${EVENT_WINDOW.toLocaleString("en-US")} events; otherwise (or with an id of another node or run) the stream starts with a \`gap\` event saying so. ` +
      "`?address=<address>` sends only the `tx` events that concern it (other events are all sent). A client that does not read is cut with a `close` event " +
      `{reason, lastEventId} (resume from \`lastEventId\`) once it is more than the window behind, or once it has left ${DEFAULT_STREAM_LIMITS.maxQueuedBytes / 1024} KiB of events unread for ${DEFAULT_STREAM_LIMITS.stallMs / 1000} s; ` +
      `at most ${DEFAULT_STREAM_LIMITS.perClient} streams per client address and ${DEFAULT_STREAM_LIMITS.perNode} per node (429 beyond). ` +
      "`HEAD` answers the head only.",
    responses: {
      200: { description: "The event stream", contentType: "text/event-stream", schema: { type: "string" }, example: EXAMPLE_STREAM },
      400: errorDoc("Invalid address (code 102) or Last-Event-ID not an event id"),
      429: errorDoc("Too many open event streams from this client address (or on this node)"),
    },
    // a resume filtered by address reads the kept events after its id one by one (up to the whole
    // window, EVENT_WINDOW, when the address is rare): weighed like a block
    cost: (_params, req) => {
      const q = queryOf(req);
      return req.method !== "HEAD" && q.get("address") !== null && (req.headers["last-event-id"] !== undefined || q.get("lastEventId") !== null) ? READ_COST.eventsFilteredResume : 1;
    },
    handler: ({ backend, req }) => {
      const addressText = queryOnce(req, "address");
      const lastEventId = queryOnce(req, "lastEventId");
      const address = addressText === null ? undefined : parseAddressText(addressText, backend.config.chainIdByte);
      const lastText = req.headers["last-event-id"] ?? lastEventId ?? undefined;
      if (lastText !== undefined && (typeof lastText !== "string" || !ID_RE.test(lastText))) {
        throw new AnchordError(ErrorCode.INVALID_FIELD, "Last-Event-ID must be an event id (<run>-<number>, as the stream sent it)");
      }
      // a HEAD answer (its parameters checked as a GET's) has no body: a stream's writes would go
      // nowhere and it would never be seen to stall, holding its place (and making the node encode
      // events for it) for good
      if (req.method === "HEAD") return { stream: (res) => void res.writeHead(200, STREAM_HEADERS).end() };
      const registry = registryOf(backend);
      const release = registry.acquire(req);
      return { stream: (res) => streamEvents(res, backend.events(), { lastEventId: lastText, address }, release, registry.limits) };
    },
  },
];
