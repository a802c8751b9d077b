// @ts-check
/** Bar charts in SVG, drawn from the series the API gives (one bar per bucket; heights only, every figure in the bar's title). */
import { h, svg } from './dom.js';
import { zone } from './format.js';

/** @typedef {import('./shapes').SeriesPoint} Point */
/**
 * @typedef {{ key: string, label: string, value: (point: Point) => number, text: (point: Point) => string }} Bars
 * One set of bars: its class, its name, its height and its exact figure for a point.
 */

const WIDTH = 10;
const HEIGHT = 100;

/**
 * A chart of `points` (each with `at`, epoch ms): the bars of each set drawn over one another,
 * the first the tallest (requests, then the errors among them); `tick` names a bucket with its
 * date, and the legend names the time zone.
 * @param {{ name: string, title: string, points: Point[], bars: Bars[], tick: (at: number) => string, total: string }} chart
 */
export function barChart({ name, title, points, bars, tick, total }) {
  const max = Math.max(1, ...points.flatMap((p) => bars.map((b) => b.value(p))));
  const [first, last, tallest] = [points[0], points[points.length - 1], bars[0]];
  const plot = svg('svg', {
    viewBox: `0 0 ${points.length * WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', class: 'bars', role: 'img', 'aria-label': `${title}: ${total}`,
  }, points.map((p, i) => svg('g', { 'data-at': p.at }, bars.map((b) => {
    const height = (b.value(p) / max) * HEIGHT;
    return svg('rect', { class: b.key, x: i * WIDTH + 1, y: HEIGHT - height, width: WIDTH - 2, height, 'data-value': b.value(p) });
  }), svg('title', null, `${tick(p.at)}: ${bars.map((b) => `${b.text(p)} ${b.label}`).join(', ')}`))));
  return h('figure', { class: 'chart', 'data-chart': name },
    h('figcaption', null, h('span', null, title), h('strong', null, total)),
    plot,
    h('div', { class: 'axis muted' }, h('span', null, first ? tick(first.at) : ''), h('span', null, first && tallest ? `peak ${tallest.text(peak(points, tallest))}` : ''), h('span', null, last ? tick(last.at) : '')),
    h('p', { class: 'legend muted' }, bars.map((b) => h('span', { class: `key ${b.key}` }, b.label)), h('span', { class: 'zone' }, `Times in ${zone(last?.at)}`)));
}

/** @param {Point[]} points @param {Bars} bars */
const peak = (points, bars) => points.reduce((best, p) => (bars.value(p) > bars.value(best) ? p : best));
