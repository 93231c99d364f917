// Line charts drawn as SVG: lines over generations, with shaded bands (a mean +/- a spread).
import {html} from "./html.js";

const WIDTH = 560, HEIGHT = 240, LEFT = 48, RIGHT = 12, TOP = 26, BOTTOM = 30;
export const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                        "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"];

function ticks(low, high, count) {
  const span = high - low || 1;
  const step = Math.pow(10, Math.floor(Math.log10(span / count)));
  const nice = [1, 2, 5, 10].map(m => m * step).find(s => span / s <= count) || step * 10;
  const out = [];
  for (let v = Math.ceil(low / nice) * nice; v <= high + 1e-9; v += nice) out.push(+v.toFixed(10));
  return out;
}

function fmt(v) {
  return Math.abs(v) >= 1000 ? v.toFixed(0) : +v.toPrecision(3) + "";
}

// series: [{name, points: [[x, y]...], colour, dash}]; bands: [{lower: [[x, y]], upper: [[x, y]], colour, opacity}];
// colours are the page's own (PALETTE), a title or a name any text. The chart as HTML (html.js).
export function lineChart({title, series, bands = [], yMin = null, yMax = null, legend = true}) {
  const xs = series.flatMap(s => s.points.map(p => p[0]));
  const ys = series.flatMap(s => s.points.map(p => p[1])).concat(bands.flatMap(b => b.lower.concat(b.upper).map(p => p[1])));
  if (!xs.length) return html`<div class="chart empty">${title}: not recorded</div>`;
  let x0 = Math.min(...xs), x1 = Math.max(...xs);
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  let y0 = yMin ?? Math.min(...ys), y1 = yMax ?? Math.max(...ys);
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const X = x => LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
  const Y = y => TOP + (1 - (y - y0) / (y1 - y0)) * (HEIGHT - TOP - BOTTOM);
  const path = points => points.map((p, k) => `${k ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join("");
  const grid = ticks(y0, y1, 5).map(t => html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${Y(t)}" y2="${Y(t)}" class="grid"/>
    <text x="${LEFT - 4}" y="${Y(t) + 4}" class="tick" text-anchor="end">${fmt(t)}</text>`);
  const generations = ticks(x0, x1, 8).filter(t => Number.isInteger(t))
    .map(t => html`<text x="${X(t)}" y="${HEIGHT - BOTTOM + 16}" class="tick" text-anchor="middle">${t}</text>`);
  const shaded = bands.map(b => {
    const shape = path(b.upper) + b.lower.slice().reverse().map(p => `L${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join("") + "Z";
    return html`<path d="${shape}" fill="${b.colour}" fill-opacity="${b.opacity}" stroke="none"><title>${b.name || ""}</title></path>`;
  });
  const lines = series.map(s => [
    html`<path d="${path(s.points)}" fill="none" stroke="${s.colour}" stroke-width="2" stroke-dasharray="${s.dash ? "5,3" : "none"}"/>`,
    (s.points.length <= 60 ? s.points : []).map(p =>
      html`<circle cx="${X(p[0])}" cy="${Y(p[1])}" r="2.5" fill="${s.colour}"><title>${s.name} ${p[0]}: ${fmt(p[1])}</title></circle>`),
  ]);
  const svg = html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}">
    <text x="${LEFT}" y="16" class="chart-title">${title}</text>${grid}${generations}
    <text x="${WIDTH - RIGHT}" y="${HEIGHT - 4}" class="tick" text-anchor="end">generation</text>${shaded}${lines}</svg>`;
  if (!legend) return svg;
  // A key's colour is an SVG fill, not a style attribute: the page's Content-Security-Policy allows no inline style.
  const swatch = (colour, opacity) =>
    html`<svg class="swatch" viewBox="0 0 12 4"><rect width="12" height="4" fill="${colour}" fill-opacity="${opacity}"/></svg>`;
  const keys = series.map(s => html`<span>${swatch(s.colour, 1)}${s.name}</span>`)
    .concat(bands.filter(b => b.name).map(b => html`<span>${swatch(b.colour, Math.max(b.opacity, 0.3))}${b.name}</span>`));
  return html`<figure class="chart-box">${svg}<figcaption class="legend">${keys}</figcaption></figure>`;
}
