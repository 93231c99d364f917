// The runs list and a run's page; both poll the server, so a run that writes new
// generations shows them without a reload.
import {getJSON, escape} from "./api.js";
import {lineChart, PALETTE} from "./chart.js";

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
  return `<span class="state state-${state.replace(/ /g, "-")}">${escape(state)}</span>`;
}

function executorText(executor) {
  if (!executor) return "–";
  return escape([executor.executor, executor.workers ? executor.workers + " workers" : ""].filter(Boolean).join(", "));
}

function runRow(run) {
  const best = run.best_fitness ? `${rate(run.best_fitness[0])} (${run.best_fitness[1] >= 0 ? "+" : ""}${Number(run.best_fitness[1]).toFixed(2)})` : "–";
  const row = `<tr class="run" data-run="${escape(run.name)}">
    <td><a href="#/runs/${encodeURIComponent(run.name)}">${escape(run.name)}</a></td>
    <td>${escape(run.experiment || "–")}</td><td>${stateBadge(run.state)}</td>
    <td class="num">${run.generations}${run.planned !== null ? " / " + (run.planned + 1) : ""}</td>
    <td class="num">${best}</td><td>${executorText(run.executor)}</td><td>${escape(run.started || "–")}</td></tr>`;
  const kind = run.state === "not a run" ? "muted" : "problem";
  return run.problem ? row + `<tr class="problem-row"><td></td><td colspan="6" class="${kind}">${escape(run.problem)}</td></tr>` : row;
}

export function showRuns(main) {
  main.innerHTML = `<h1>Evolution runs</h1><p id="runs-dir" class="muted"></p><div id="runs-table"></div>`;
  return poller(async () => {
    let data;
    try {
      data = await getJSON("/api/runs");
    } catch (e) {
      document.getElementById("runs-table").innerHTML = `<p class="error">${escape(e.message)}</p>`;
      return;
    }
    document.getElementById("runs-dir").textContent = data.exists ? `run folders in ${data.runs_dir}` :
      `${data.runs_dir} does not exist yet: evolve run creates it (or give littlego serve --runs FOLDER)`;
    document.getElementById("runs-table").innerHTML = data.runs.length ? `<table class="runs"><thead><tr>
      <th>run</th><th>experiment</th><th>state</th><th>generations</th><th>best win rate (margin)</th>
      <th>executor</th><th>started</th></tr></thead><tbody>${data.runs.map(runRow).join("")}</tbody></table>` :
      `<p class="muted">No run folders yet.</p>`;
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
  ].join("");
}

function sprtBar(sprt) {
  if (!sprt || sprt.llr == null) return "–";
  const share = Math.min(Math.max((sprt.llr - sprt.lower) / (sprt.upper - sprt.lower), 0), 1);
  return `<div class="sprt" title="LLR ${sprt.llr.toFixed(2)} in [${sprt.lower.toFixed(2)}, ${sprt.upper.toFixed(2)}]">
    <div class="sprt-mark" style="left:${(share * 100).toFixed(1)}%"></div></div>
    LLR ${sprt.llr.toFixed(2)} in [${sprt.lower.toFixed(2)}, ${sprt.upper.toFixed(2)}] for Elo ${sprt.elo0} vs ${sprt.elo1}:
    ${escape(sprt.decision === null ? "undecided" : sprt.decision)}`;
}

function reportsTable(reports) {
  if (!reports.length) return `<p class="muted">No match reports (littlego match --json) in this folder.</p>`;
  return `<table class="reports"><thead><tr><th>file</th><th>A</th><th>B</th><th>games</th><th>A wins</th><th>Elo (A−B)</th><th>SPRT</th></tr></thead><tbody>` +
    reports.map(r => `<tr><td>${escape(r.file)}</td><td>${escape(r.a)}</td><td>${escape(r.b)}</td><td class="num">${escape(r.games)}</td>
      <td class="num">${escape(r.wins && typeof r.wins === "object" ? r.wins[r.a] : "–")}</td>
      <td class="num">${r.elo == null ? "–" : Number(r.elo).toFixed(1) + (r.elo_margin == null ? "" : " ± " + Number(r.elo_margin).toFixed(1))}</td>
      <td>${sprtBar(r.sprt)}${r.interrupted ? ` <span class="muted">(${escape(r.interrupted)})</span>` : ""}</td></tr>`).join("") + "</tbody></table>";
}

export function showRun(main, name) {
  main.innerHTML = `<p><a href="#/runs">← all runs</a></p><h1>${escape(name)}</h1><div id="run-head"></div>
    <div id="run-problem"></div><div id="run-charts" class="charts"></div>
    <h2>Match reports</h2><div id="run-reports"></div>
    <h2>Experiment</h2><pre id="run-config" class="text"></pre><h2>Log (its end)</h2><pre id="run-log" class="text"></pre>`;
  let gens = [];
  return poller(async () => {
    let data;
    try {
      data = await getJSON(`/api/runs/${encodeURIComponent(name)}?after=${gens.length}`);
    } catch (e) {
      document.getElementById("run-problem").innerHTML = `<p class="error">${escape(e.message)}</p>`;
      return;
    }
    const s = data.summary;
    gens = data.restart ? data.generations : gens.concat(data.generations);
    document.getElementById("run-head").innerHTML = `${stateBadge(s.state)} experiment <b>${escape(s.experiment || "–")}</b>,
      <span id="run-generations">${gens.length}</span> generations${s.planned !== null ? " of " + (s.planned + 1) : ""},
      executor ${executorText(s.executor)}, started ${escape(s.started || "–")}`;
    document.getElementById("run-problem").innerHTML = s.problem ? `<p class="error problem">${escape(s.problem)}</p>` : "";
    if (data.generations.length || data.restart || !document.getElementById("run-charts").innerHTML) {
      document.getElementById("run-charts").innerHTML = gens.length ? fitnessCharts(gens) : "";
    }
    document.getElementById("run-reports").innerHTML = reportsTable(data.reports);
    document.getElementById("run-config").textContent = data.config ?? "(no config.toml)";
    const log = document.getElementById("run-log");
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.textContent = data.log ?? "(no run.log)";
    if (atEnd) log.scrollTop = log.scrollHeight;
  });
}
