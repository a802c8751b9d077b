/** `BENCH_PROFILE=1 npm run bench`: where the gateway's CPU goes, frame by frame, next to (c). */
import { readFileSync } from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Self time per frame as µs per request: each frame's share of busy (non-idle) time × the measured CPU per request. */
function perRequest(file: string, cpuPerRequest: number): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const dt = profile.timeDeltas[i] ?? 0;
    if (frame.functionName === '(idle)') return;
    busy += dt;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '').replace(/.*\.bench-build\//, '')}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  for (const [key, t] of self) self.set(key, (cpuPerRequest * t) / Math.max(1, busy));
  return self;
}

/** A Markdown table of the frames where `gateway` spends the most more than `base`, per request. */
export function profileDiff(base: { file: string; cpu: number }, gateway: { file: string; cpu: number }, rows = 25): string {
  const a = perRequest(base.file, base.cpu);
  const b = perRequest(gateway.file, gateway.cpu);
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const diff = keys.map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 })).sort((x, y) => (y.b - y.a) - (x.b - x.a));
  const f = (n: number): string => n.toFixed(1);
  const out = ['| frame (self time) | (c) µs/req | (d) µs/req | more in (d) |', '|---|---:|---:|---:|'];
  for (const r of diff.slice(0, rows)) out.push(`| \`${r.k}\` | ${f(r.a)} | ${f(r.b)} | ${f(r.b - r.a)} |`);
  return out.join('\n');
}
