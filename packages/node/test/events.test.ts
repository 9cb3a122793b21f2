import { describe, expect, it } from "vitest";
import { EventLog } from "../src/events.js";

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");
const A = "3N7RAo9eXFhJEdpPgbhsAFti8s1HDxxXiCW";
const B = "3MzvyZvRgaKx1DadoSPjMDsUGyjSTQCXCqn";

describe("EventLog", () => {
  it("reads events after a cursor as SSE frames, at most max, and says when the cursor left the window", () => {
    const log = new EventLog(4, 100, "run1");
    expect(log.lastId()).toBe(99);
    expect(log.read(99, 10)).toEqual({ bytes: new Uint8Array(0), lastId: 99 });
    log.emit("block", { height: 2 });
    log.emit("tx", { id: "t", type: 4, height: 2 }, [A, B]);
    log.emit("rollback", { height: 1 });
    const all = log.read(99, 10)!;
    expect(all.lastId).toBe(102);
    expect(text(all.bytes)).toBe(
      'id: run1-100\nevent: block\ndata: {"height":2}\n\n' + 'id: run1-101\nevent: tx\ndata: {"id":"t","type":4,"height":2}\n\n' + 'id: run1-102\nevent: rollback\ndata: {"height":1}\n\n',
    );
    const two = log.read(99, 2)!;
    expect(two.lastId).toBe(101);
    expect(text(log.read(101, 5)!.bytes)).toBe('id: run1-102\nevent: rollback\ndata: {"height":1}\n\n');
    // ids as clients see them: this run's parse, another run's (or node's) and bare numbers do not
    expect(log.idText(101)).toBe("run1-101");
    expect(log.parseId("run1-101")).toBe(101);
    expect(log.parseId("run2-101")).toBeUndefined();
    expect(log.parseId("101")).toBeUndefined();
    expect(new EventLog().run).not.toBe(new EventLog().run);
    // not yet written, or not an id of this run
    expect(log.read(103, 1)).toBeUndefined();
    expect(log.read(1.5, 1)).toBeUndefined();
    // the window is 4 events: 100 is overwritten by 104, so a cursor before 100 can no longer resume
    log.emit("anchor", { hash: "00" });
    log.emit("anchor", { hash: "01" });
    expect(log.read(99, 10)).toBeUndefined();
    expect(log.read(100, 10)!.lastId).toBe(104);
    expect(text(log.read(103, 10)!.bytes)).toBe('id: run1-104\nevent: anchor\ndata: {"hash":"01"}\n\n');
  });

  it("filters tx events by a whole address and keeps every other event", () => {
    const log = new EventLog(10, 0);
    log.emit("tx", { id: "1" }, [A, B]);
    log.emit("tx", { id: "2" }, [B]);
    log.emit("block", { height: 3 });
    log.emit("tx", { id: "3" }, [A]);
    log.emit("tx", { id: "4" }, []);
    const forA = text(log.read(-1, 10, A)!.bytes);
    expect(forA.match(/"id":"\d"/g)).toEqual(['"id":"1"', '"id":"3"']);
    expect(forA).toContain("event: block");
    const forB = text(log.read(-1, 10, B)!.bytes);
    expect(forB.match(/"id":"\d"/g)).toEqual(['"id":"1"', '"id":"2"']);
    // a part of a listed address is not that address
    expect(text(log.read(-1, 10, A.slice(0, 20))!.bytes).match(/event: tx/g)).toBeNull();
    expect(text(log.read(-1, 10, A.slice(5))!.bytes).match(/event: tx/g)).toBeNull();
    // a filter that matches nothing still moves the cursor past what it read
    expect(log.read(2, 10, "nobody")).toEqual({ bytes: new Uint8Array(0), lastId: 4 });
  });

  it("hands streams reading from the same cursor the same encoded chunk, filtered ones their own", () => {
    const log = new EventLog(10, 0);
    for (let i = 0; i < 5; i++) log.emit("tx", { id: String(i) }, [A]);
    const first = log.read(-1, 3)!;
    expect(log.read(-1, 3)).toBe(first);
    expect(log.read(-1, 3, A)).not.toBe(first);
    expect(text(log.read(-1, 3, A)!.bytes)).toBe(text(first.bytes));
    // a chunk read before later events arrived stays right: the next read goes on from its end
    log.emit("block", { height: 9 });
    expect(log.read(-1, 10)).toBe(log.read(-1, 10));
    expect(log.read(first.lastId, 10)!.lastId).toBe(5);
  });

  it("hands the streams of one address reading from the same cursor one filtered chunk, scanned once", () => {
    const log = new EventLog(100, 0);
    for (let i = 0; i < 20; i++) log.emit("tx", { id: String(i) }, [i % 2 === 0 ? A : B]);
    const forA = log.read(-1, 256, A)!;
    expect(log.read(-1, 256, A)).toBe(forA);
    const forB = log.read(-1, 256, B)!;
    expect(forB).not.toBe(forA);
    expect(text(forA.bytes).match(/^event: tx$/gm)).toHaveLength(10);
    expect(text(forB.bytes)).not.toBe(text(forA.bytes));
    // later events: a stream at the shared chunk's end reads on from there
    log.emit("tx", { id: "20" }, [A]);
    expect(text(log.read(forA.lastId, 256, A)!.bytes)).toContain('"id":"20"');
    expect(log.read(forA.lastId, 256, B)!.bytes.length).toBe(0);
  });
});
