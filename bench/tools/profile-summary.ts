/**
 * Summarises V8 .cpuprofile files (node --cpu-prof): self time by function and by package/file,
 * and inclusive time of the heaviest functions, as percentages of the profiled time.
 *
 *   npx tsx bench/tools/profile-summary.ts <file.cpuprofile>... [--top 30]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string" } } });
const top = Number(values.top ?? 30);

function where(cf: CallFrame): string {
  const url = cf.url.replace(/^file:\/\//, "");
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  const p = /packages\/([^/]+)\/(?:dist|src)\/(.+)$/.exec(url);
  if (p) return `${p[1]}/${p[2]}`;
  if (url.startsWith("node:")) return url;
  return url === "" ? "(native)" : url.split("/").slice(-2).join("/");
}

for (const file of positionals) {
  const prof = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id)!.callFrame.functionName)).reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;

  const selfBy = new Map<string, number>();
  const fileBy = new Map<string, number>();
  const incl = new Map<string, number>();
  for (const [id, t] of self) {
    const cf = byId.get(id)!.callFrame;
    const key = `${cf.functionName || "(anonymous)"} ${where(cf)}:${cf.lineNumber + 1}`;
    selfBy.set(key, (selfBy.get(key) ?? 0) + t);
    fileBy.set(where(cf), (fileBy.get(where(cf)) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const c = byId.get(cur)!.callFrame;
      const k = `${c.functionName || "(anonymous)"} ${where(c)}:${c.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
    }
  }
  const pct = (t: number): string => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>, n: number): string =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `  ${pct(t)}  ${k}`)
      .join("\n");
  console.log(`\n== ${file}: ${(total / 1e6).toFixed(1)} s profiled, busy ${pct(busy)}`);
  console.log(`-- self time by file/package\n${list(fileBy, 20)}`);
  console.log(`-- self time by function\n${list(selfBy, top)}`);
  console.log(`-- inclusive time by function\n${list(incl, top)}`);
}
