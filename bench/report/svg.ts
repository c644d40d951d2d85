// The plot of BENCHMARKS.md, drawn by hand (no dependency): jobs per second and median job latency
// against the number of concurrent jobs, log-log, one line per variant.
import type { BenchResults, RunResult } from '../results.js';

interface Series {
  name: string;
  color: string;
  dash: string;
  /** Polling points are squares, callback points circles (single points have no line to tell them apart). */
  square: boolean;
  points: Array<{ x: number; y: number }>;
}

const W = 1010;
const H = 440;
const PANEL = { w: 400, h: 300, top: 50, left: [70, 580] as const };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function seriesOf(r: BenchResults, metric: (run: RunResult) => number): Series[] {
  const defs: Array<{ name: string; color: string; dash: string; square?: boolean; pick: (x: RunResult) => boolean }> =
    [];
  for (const profile of r.profiles.map((p) => p.name)) {
    for (const mode of ['callbacks', 'polling'] as const) {
      const dark = profile === 'zero';
      const dash = mode === 'polling' ? '6 4' : '';
      const square = mode === 'polling';
      defs.push({
        name: `package, ${mode}, ${profile}`,
        color: dark ? '#1f4e9c' : '#6fa8ff',
        dash,
        square,
        pick: (x) => x.kind === 'ours' && x.mode === mode && x.profile === profile,
      });
      defs.push({
        name: `plain script, ${mode}, ${profile}`,
        color: dark ? '#c25400' : '#ffad5c',
        dash,
        square,
        pick: (x) => x.kind === 'peer' && x.mode === mode && x.profile === profile,
      });
    }
  }
  defs.push({ name: 'trivial workflow (server limit)', color: '#444', dash: '2 3', pick: (x) => x.kind === 'trivial' });
  return defs
    .map((d) => ({
      name: d.name,
      color: d.color,
      dash: d.dash,
      square: d.square ?? false,
      points: r.runs
        .filter((x) => d.pick(x) && x.completed > 0)
        .map((x) => ({ x: x.concurrency, y: metric(x) }))
        .filter((p) => Number.isFinite(p.y) && p.y > 0)
        .sort((a, b) => a.x - b.x),
    }))
    .filter((s) => s.points.length > 0);
}

/** Decade ticks with 2 and 5 in between, covering [lo, hi]. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

function fmt(v: number): string {
  if (v >= 1000) return `${v / 1000}k`;
  if (v >= 1) return String(Math.round(v * 100) / 100);
  return String(Number(v.toPrecision(2)));
}

function panel(series: Series[], left: number, title: string, yLabel: string, xs: number[]): string {
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  if (ys.length === 0) return '';
  const yLo = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const xLo = Math.min(...xs) / 1.5;
  const xHi = Math.max(...xs) * 1.5;
  const sx = (x: number) => left + ((Math.log10(x) - Math.log10(xLo)) / (Math.log10(xHi) - Math.log10(xLo))) * PANEL.w;
  const sy = (y: number) =>
    PANEL.top + PANEL.h - ((Math.log10(y) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo))) * PANEL.h;
  const out: string[] = [];
  out.push(
    `<text x="${left + PANEL.w / 2}" y="${PANEL.top - 18}" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
  );
  out.push(`<rect x="${left}" y="${PANEL.top}" width="${PANEL.w}" height="${PANEL.h}" fill="none" stroke="#999"/>`);
  for (const t of logTicks(yLo, yHi)) {
    out.push(`<line x1="${left}" x2="${left + PANEL.w}" y1="${sy(t)}" y2="${sy(t)}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${left - 6}" y="${sy(t) + 4}" text-anchor="end">${fmt(t)}</text>`);
  }
  for (const x of xs) {
    out.push(`<line x1="${sx(x)}" x2="${sx(x)}" y1="${PANEL.top}" y2="${PANEL.top + PANEL.h}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${sx(x)}" y="${PANEL.top + PANEL.h + 16}" text-anchor="middle">${fmt(x)}</text>`);
  }
  out.push(
    `<text x="${left + PANEL.w / 2}" y="${PANEL.top + PANEL.h + 34}" text-anchor="middle">concurrent jobs (log)</text>`,
  );
  out.push(
    `<text transform="translate(${left - 48} ${PANEL.top + PANEL.h / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  );
  for (const s of series) {
    const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${sx(p.x).toFixed(1)} ${sy(p.y).toFixed(1)}`).join(' ');
    out.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
    for (const p of s.points) {
      const [x, y] = [sx(p.x), sy(p.y)];
      const title = `<title>${esc(`${s.name}: ${fmt(p.y)} at ${p.x}`)}</title>`;
      out.push(
        s.square
          ? `<rect x="${(x - 3.5).toFixed(1)}" y="${(y - 3.5).toFixed(1)}" width="7" height="7" fill="${s.color}">${title}</rect>`
          : `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5" fill="${s.color}">${title}</circle>`,
      );
    }
  }
  return out.join('\n');
}

export function renderPlot(r: BenchResults): string {
  const throughput = seriesOf(r, (x) => x.throughput.value);
  const latency = seriesOf(r, (x) => x.latency.p50 / 1000);
  const xs = [...new Set(r.runs.map((x) => x.concurrency))].sort((a, b) => a - b);
  const legend = throughput.map((s, i) => {
    const col = i % 3;
    const row = Math.floor(i / 3);
    const x = 70 + col * 320;
    const y = PANEL.top + PANEL.h + 62 + row * 18;
    const mark = s.square
      ? `<rect x="${x + 10.5}" y="${y - 7.5}" width="7" height="7" fill="${s.color}"/>`
      : `<circle cx="${x + 14}" cy="${y - 4}" r="3.5" fill="${s.color}"/>`;
    return `<line x1="${x}" x2="${x + 28}" y1="${y - 4}" y2="${y - 4}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>${mark}<text x="${x + 34}" y="${y}">${esc(s.name)}</text>`;
  });
  const rows = Math.ceil(throughput.length / 3);
  const height = Math.max(H, PANEL.top + PANEL.h + 62 + rows * 18 + 10);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${W / 2}" y="16" text-anchor="middle" font-size="13">${esc(`${r.name}: ${r.machine.cores} cores, Node ${r.machine.node}, ${r.machine.temporalCli.split(' (')[0]}${r.machine.shared ? ' (shared machine)' : ''}`)}</text>`,
    panel(throughput, PANEL.left[0], 'Throughput', 'jobs per second (log)', xs),
    panel(latency, PANEL.left[1], 'Median job latency (start to result)', 'seconds (log)', xs),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
