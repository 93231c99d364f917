// The runs list and a run's page; both poll the server, so a run that writes new
// generations shows them without a reload.
import {getJSON} from "./api.js";
import {lineChart, PALETTE} from "./chart.js";
import {html, show} from "./html.js";

const POLL_MS = 2000;

function poller(task) {
  let stopped = false, timer = null;
  async function tick() {
    if (stopped) return;
    await task();
    if (!stopped) timer = setTimeout(tick, POLL_MS);
  }
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}

function rate(value) {
  return value === null || value === undefined ? "–" : Number(value).toFixed(3);
}

function stateBadge(state) {
  return html`<span class="state state-${String(state).replace(/ /g, "-")}">${state}</span>`;
}

function executorText(executor) {
  if (!executor) return "–";
  return [executor.executor, executor.workers ? executor.workers + " workers" : ""].filter(Boolean).join(", ");
}

function runRow(run) {
  const best = run.best_fitness ? `${rate(run.best_fitness[0])} (${run.best_fitness[1] >= 0 ? "+" : ""}${Number(run.best_fitness[1]).toFixed(2)})` : "–";
  const row = html`<tr class="run" data-run="${run.name}">
    <td><a href="#/runs/${encodeURIComponent(run.name)}">${run.name}</a></td>
    <td>${run.experiment || "–"}</td><td>${stateBadge(run.state)}</td>
    <td class="num">${run.generations}${run.planned !== null ? " / " + (run.planned + 1) : ""}</td>
    <td class="num">${best}</td><td>${executorText(run.executor)}</td><td>${run.started || "–"}</td></tr>`;
  const kind = run.state === "not a run" ? "muted" : "problem";
  return run.problem ? html`${row}<tr class="problem-row"><td></td><td colspan="6" class="${kind}">${run.problem}</td></tr>` : row;
}

export function showRuns(main) {
  show(main, html`<h1>Evolution runs</h1><p id="runs-dir" class="muted"></p><div id="runs-table"></div>`);
  return poller(async () => {
    let data;
    try {
      data = await getJSON("/api/runs");
    } catch (e) {
      show(document.getElementById("runs-table"), html`<p class="error">${e.message}</p>`);
      return;
    }
    document.getElementById("runs-dir").textContent = data.exists ? `run folders in ${data.runs_dir}` :
      `${data.runs_dir} does not exist yet: evolve run creates it (or give littlego serve --runs FOLDER)`;
    show(document.getElementById("runs-table"), data.runs.length ? html`<table class="runs"><thead><tr>
      <th>run</th><th>experiment</th><th>state</th><th>generations</th><th>best win rate (margin)</th>
      <th>executor</th><th>started</th></tr></thead><tbody>${data.runs.map(runRow)}</tbody></table>` :
      html`<p class="muted">No run folders yet.</p>`);
  });
}

function fitnessCharts(gens) {
  const g = r => r.generation;
  const se = r => r.win_rate.standard_error ?? 0;
  const weights = gens.length ? Object.keys(gens[gens.length - 1].best_weights) : [];
  return [
    lineChart({title: "Fitness: best and population mean (win rate)", yMin: 0, yMax: 1, series: [
      {name: "best (hall of fame)", colour: PALETTE[0], points: gens.map(r => [g(r), r.best_fitness[0]])},
      {name: "mean", colour: PALETTE[1], points: gens.map(r => [g(r), r.win_rate.mean])}],
      bands: [
        {name: "mean ± spread (std)", colour: PALETTE[1], opacity: 0.12,
         lower: gens.map(r => [g(r), r.win_rate.mean - r.win_rate.std]), upper: gens.map(r => [g(r), r.win_rate.mean + r.win_rate.std])},
        {name: "mean ± standard error", colour: PALETTE[1], opacity: 0.35,
         lower: gens.map(r => [g(r), r.win_rate.mean - se(r)]), upper: gens.map(r => [g(r), r.win_rate.mean + se(r)])}]}),
    lineChart({title: "The best individual's win rate as Black and as White", yMin: 0, yMax: 1, series: [
      {name: "as Black", colour: "#333", points: gens.filter(r => r.best_by_colour?.black != null).map(r => [g(r), r.best_by_colour.black])},
      {name: "as White", colour: PALETTE[9], points: gens.filter(r => r.best_by_colour?.white != null).map(r => [g(r), r.best_by_colour.white])}]}),
    lineChart({title: "Diversity of the population", series: [
      {name: "diversity", colour: PALETTE[2], points: gens.map(r => [g(r), r.diversity])}]}),
    lineChart({title: "Games per second", series: [
      {name: "games/s", colour: PALETTE[4], points: gens.map(r => [g(r), r.games_per_second])}]}),
    lineChart({title: "Weights of the best individual", series: weights.map((name, k) => (
      {name, colour: PALETTE[k % PALETTE.length], dash: k >= 10, points: gens.filter(r => name in r.best_weights).map(r => [g(r), r.best_weights[name]])}))}),
  ];
}

const SPRT_WIDTH = 120;  // px, as .sprt in style.css

function sprtBar(sprt) {
  if (!sprt || ![sprt.llr, sprt.lower, sprt.upper].every(Number.isFinite)) return "–";
  const share = Math.min(Math.max((sprt.llr - sprt.lower) / (sprt.upper - sprt.lower), 0), 1) || 0;
  const state = `LLR ${sprt.llr.toFixed(2)} in [${sprt.lower.toFixed(2)}, ${sprt.upper.toFixed(2)}]`;
  // The mark is placed by an SVG attribute, not a style attribute: the page's Content-Security-Policy allows no inline style.
  return html`<div class="sprt" title="${state}"><svg viewBox="0 0 ${SPRT_WIDTH} 10">
    <rect class="sprt-mark" x="${(share * SPRT_WIDTH).toFixed(1)}" y="-3" width="3" height="16"/></svg></div>
    ${state} for Elo ${sprt.elo0} vs ${sprt.elo1}: ${sprt.decision === null ? "undecided" : sprt.decision}`;
}

function reportsTable(reports) {
  if (!reports.length) return html`<p class="muted">No match reports (littlego match --json) in this folder.</p>`;
  return html`<table class="reports"><thead><tr><th>file</th><th>A</th><th>B</th><th>games</th><th>A wins</th><th>Elo (A−B)</th><th>SPRT</th></tr></thead><tbody>
    ${reports.map(r => html`<tr><td>${r.file}</td><td>${r.a}</td><td>${r.b}</td><td class="num">${r.games}</td>
      <td class="num">${r.wins && typeof r.wins === "object" ? r.wins[r.a] : "–"}</td>
      <td class="num">${r.elo == null ? "–" : Number(r.elo).toFixed(1) + (r.elo_margin == null ? "" : " ± " + Number(r.elo_margin).toFixed(1))}</td>
      <td>${sprtBar(r.sprt)}${r.interrupted ? html` <span class="muted">(${r.interrupted})</span>` : ""}</td></tr>`)}</tbody></table>`;
}

export function showRun(main, name) {
  show(main, html`<p><a href="#/runs">← all runs</a></p><h1>${name}</h1><div id="run-head"></div>
    <div id="run-problem"></div><div id="run-charts" class="charts"></div>
    <h2>Match reports</h2><div id="run-reports"></div>
    <h2>Experiment</h2><pre id="run-config" class="text"></pre><h2>Log (its end)</h2><pre id="run-log" class="text"></pre>`);
  const $ = id => document.getElementById(id);
  let gens = [];
  return poller(async () => {
    let data;
    try {
      data = await getJSON(`/api/runs/${encodeURIComponent(name)}?after=${gens.length}`);
    } catch (e) {
      show($("run-problem"), html`<p class="error">${e.message}</p>`);
      return;
    }
    const s = data.summary;
    gens = data.restart ? data.generations : gens.concat(data.generations);
    show($("run-head"), html`${stateBadge(s.state)} experiment <b>${s.experiment || "–"}</b>,
      <span id="run-generations">${gens.length}</span> generations${s.planned !== null ? " of " + (s.planned + 1) : ""},
      executor ${executorText(s.executor)}, started ${s.started || "–"}`);
    show($("run-problem"), s.problem ? html`<p class="error problem">${s.problem}</p>` : html``);
    if (data.generations.length || data.restart || !$("run-charts").hasChildNodes()) {
      show($("run-charts"), gens.length ? html`${fitnessCharts(gens)}` : html``);
    }
    show($("run-reports"), reportsTable(data.reports));
    $("run-config").textContent = data.config ?? "(no config.toml)";
    const log = $("run-log");
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.textContent = data.log ?? "(no run.log)";
    if (atEnd) log.scrollTop = log.scrollHeight;
  });
}
