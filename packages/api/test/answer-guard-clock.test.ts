/**
 * The answer guard's stall timing (answerGuard.ts) runs on a monotonic clock: a step of the host's
 * wall clock (NTP) neither closes a socket that has not stalled for `stallMs` nor keeps one that has.
 */
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { AnswerGuard, DEFAULT_ANSWER_LIMITS } from "../src/answerGuard.js";

describe("AnswerGuard stall sweep", () => {
  it("does not close a socket that has waited less than stallMs when the wall clock steps forward an hour", () => {
    // the wall clock as NTP steps it, in place before the guard takes its clock
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + skew);
    const socket = new Socket();
    const guard = new AnswerGuard({ ...DEFAULT_ANSWER_LIMITS, stallMs: 30_000 });
    try {
      // a request admitted, its answer not yet taken by the kernel: a sweep sees it waiting
      expect(guard.admit({ socket } as unknown as IncomingMessage, new EventEmitter() as unknown as ServerResponse)).toBe(true);
      guard.sweepStalls();
      skew = 3_600_000;
      guard.sweepStalls();
      expect(guard.stats.stallClosed).toBe(0);
      expect(socket.destroyed).toBe(false);
      expect(guard.stats.stalled).toBe(1);
    } finally {
      spy.mockRestore();
      guard.stop();
      socket.destroy();
    }
  });
});
