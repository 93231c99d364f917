// The analysis board: play any player by clicking, undo, new game, SGF out and in, and for the
// position shown every legal move's value, the book's move and the shipped agent's move.
import {postJSON} from "./api.js";
import {html, show} from "./html.js";

const SIZE = 5, CELL = 76, EDGE = 68, PASS = "PASS";
const COLUMNS = "ABCDE";
const SPECS = ["random", "greedy", "aggressive", "alphabeta", "champion", "handset@4", "qlearning", "gnugo", "agent:params.json@4"];

function moveName(move) {
  if (move === PASS || move === null || move === undefined) return move === PASS ? "pass" : "–";
  const i = Math.floor(move / SIZE), j = move % SIZE;
  return `${i},${j} (${COLUMNS[j]}${SIZE - i})`;
}

// The position in the page's address: #/board?moves=C3,B4,pass (GTP vertices), so that a position can be
// bookmarked, shared or reloaded.
function vertexOf(move) {
  return move === PASS ? "pass" : `${COLUMNS[move % SIZE]}${SIZE - Math.floor(move / SIZE)}`;
}

function movesInAddress() {
  const query = location.hash.split("?")[1] || "";
  const text = new URLSearchParams(query).get("moves");
  if (!text) return [];
  return text.split(",").map(word => {
    const vertex = word.trim().toUpperCase();
    if (vertex === "PASS") return PASS;
    const j = COLUMNS.indexOf(vertex[0]), row = Number(vertex.slice(1));
    if (vertex.length !== 2 || j < 0 || !(row >= 1 && row <= SIZE)) throw new Error(`the address names no move ${JSON.stringify(word)} (moves=C3,B4,pass)`);
    return (SIZE - row) * SIZE + j;
  });
}

function showInAddress(moves) {
  const address = "#/board" + (moves.length ? "?moves=" + moves.map(vertexOf).join(",") : "");
  if (location.hash !== address) history.replaceState(null, "", address);
}

function xy(point) {
  return [EDGE + (point % SIZE) * CELL, EDGE + Math.floor(point / SIZE) * CELL];
}

function boardSvg(view, values, agent) {
  const far = EDGE + (SIZE - 1) * CELL;
  const lines = Array.from({length: SIZE}, (_, k) => {
    const at = EDGE + k * CELL;
    return html`<line x1="${EDGE}" y1="${at}" x2="${far}" y2="${at}" class="line"/><line x1="${at}" y1="${EDGE}" x2="${at}" y2="${far}" class="line"/>
      <text x="${at}" y="${EDGE - 46}" class="coord">${COLUMNS[k]}</text><text x="${at}" y="${EDGE - 34}" class="coord small">j ${k}</text>
      <text x="${EDGE - 50}" y="${at + 5}" class="coord">${SIZE - k}</text><text x="${EDGE - 50}" y="${at + 19}" class="coord small">i ${k}</text>`;
  });
  const byMove = new Map((values?.moves || []).map(v => [v.move, v]));
  const legal = new Set(view.legal);
  const points = Array.from({length: SIZE * SIZE}, (_, point) => {
    const [x, y] = xy(point), colour = view.points[point];
    let marks = html``;
    if (colour) {
      marks = html`<circle cx="${x}" cy="${y}" r="${CELL * 0.44}" class="stone ${colour === 1 ? "black" : "white"}"/>
        ${view.last === point ? html`<circle cx="${x}" cy="${y}" r="${CELL * 0.14}" class="last ${colour === 1 ? "on-black" : "on-white"}"/>` : ""}`;
    } else if (byMove.has(point)) {
      const v = byMove.get(point);
      const kind = v.wins === true ? "win" : v.wins === false ? "loss" : "guess";
      const label = v.margin !== null ? (v.margin > 0 ? "+" : "") + v.margin : v.wins === null ? Number(v.value).toFixed(1) : v.wins ? "W" : "L";
      marks = html`<circle cx="${x}" cy="${y}" r="${CELL * 0.3}" class="value ${kind}"/><text x="${x}" y="${y + 6}" class="value-text" data-value="${point}">${label}</text>`;
    }
    return html`<g class="point" data-point="${point}" data-legal="${legal.has(point) ? 1 : 0}" data-colour="${colour}">
      <rect x="${x - CELL / 2}" y="${y - CELL / 2}" width="${CELL}" height="${CELL}" class="hit"/>${marks}
      ${view.book === point ? html`<rect x="${x - CELL * 0.42}" y="${y - CELL * 0.42}" width="${CELL * 0.84}" height="${CELL * 0.84}" rx="8" class="book-mark"/>` : ""}
      ${agent && agent.move === point ? html`<circle cx="${x}" cy="${y}" r="${CELL * 0.4}" class="agent-mark"/>` : ""}</g>`;
  });
  return html`<svg id="board" viewBox="0 0 ${2 * EDGE + (SIZE - 1) * CELL} ${2 * EDGE + (SIZE - 1) * CELL}">
    <rect x="0" y="0" width="100%" height="100%" class="wood"/>${lines}${points}</svg>`;
}

function valuesTable(values) {
  if (!values) return html``;
  const rows = values.moves.slice().sort((a, b) => (b.wins === true) - (a.wins === true) ||
    ((b.margin ?? b.value ?? 0) - (a.margin ?? a.value ?? 0)));
  const unsettled = values.exact && !values.more && values.moves.some(v => v.margin === null);
  return html`<p class="note" id="values-note">${values.note} (answered in ${values.seconds.toFixed(2)} s of wall time)${
    unsettled ? html` <button id="keep-solving">keep solving (up to 5 min of CPU)</button>` : ""}</p>
    <table class="values"><thead><tr><th>move</th><th>result for the side to move</th><th>${values.exact ? "final margin (stones, komi included)" : "search value (the evaluation's units, not stones)"}</th></tr></thead><tbody>
    ${rows.map(v => html`<tr data-move="${v.move}" data-wins="${v.wins}" data-margin="${v.margin ?? ""}"><td>${moveName(v.move)}</td>
      <td class="${v.wins === true ? "win" : v.wins === false ? "loss" : values.pending ? "pending" : ""}">${v.wins === true ? "win" : v.wins === false ? "loss" : values.pending ? "solving…" : "?"}</td>
      <td class="num">${v.margin !== null ? (v.margin > 0 ? "+" : "") + v.margin : v.value !== null ? Number(v.value).toFixed(2) : "–"}</td></tr>`)}
    </tbody></table>`;
}

// How many times the page asks for a lost position's refutations while the answer leaves moves out.
const REFUTATION_ASKS = 5;

// In a lost position, how hard each move is to answer: the least-bad move, then every move with the share
// of the opponent's replies that keep its win (fewer: harder to find the refutation) and the shallowest
// depth at which the agent's search finds one (deeper: harder).
function refutationsText(found) {
  if (!found || !found.lost) return html``;
  if (!found.moves.length) {  // none reached yet: asked again, or the last answer
    if (found.complete) return html``;
    return found.last ? html`<p class="note" id="refutations-wait">the solver reached no move's replies in its time: step away and back to ask again</p>`
      : html`<p class="muted" id="refutations-wait">solving the opponent's replies…</p>`;
  }
  const share = row => row.replies ? `${row.keeping} of ${row.replies} replies keep the win` : "it ends the game, lost";
  const depth = row => !row.replies ? "–" : row.depth !== null ? `${row.depth} ${row.depth === 1 ? "ply" : "plies"}` : `deeper than ${found.deepest} plies, or not reached in time`;
  const best = found.moves[0];
  return html`<p id="least-bad">Every move loses. The least-bad: <b>${moveName(best.move)}</b>: the opponent ${
    best.replies ? `keeps its win with only ${best.keeping} of its ${best.replies} replies` : "has nothing to find"}.</p>
    <table class="values" id="refutations"><thead><tr><th>move</th><th>the opponent's replies that keep its win</th><th>the agent's search finds one at depth</th></tr></thead><tbody>
    ${found.moves.map(row => html`<tr data-move="${row.move}" data-keeping="${row.keeping}" data-replies="${row.replies}" data-depth="${row.depth ?? ""}"><td>${moveName(row.move)}</td><td class="num">${share(row)}</td><td class="num">${depth(row)}</td></tr>`)}
    </tbody></table>${found.complete ? "" : html`<p class="note">not every move was reached in the solver's time</p>`}`;
}

function agentText(agent) {
  if (!agent) return html``;
  const how = {first: "as the solved game's only winning first move", book: "from the opening book",
               solver: agent.value === null ? "by the exact solver: it wins" :
                 `by the exact solver: it wins by ${agent.value} stones`,
               search: `by its search to depth ${agent.depth}, value ${Number(agent.value).toFixed(2)}`}[agent.how];
  return html`The shipped agent plays <b id="agent-move">${moveName(agent.move)}</b> ${how}, in ${agent.seconds.toFixed(2)} s of its CPU.`;
}

export function showBoard(main) {
  // asked: the analysis asked last (answers for an earlier one are dropped); game: bumped whenever the
  // position jumps (New game, Undo, ◀ ▶, Open), so that an opponent's answer for another position is dropped.
  const state = {moves: [], record: null, view: null, values: null, agent: null, asked: 0, busy: false, game: 0,
                 opponent: localStorage.getItem("opponent") ?? "random", human: "black", seed: 1};
  show(main, html`<div class="board-page"><div id="board-box"></div><div class="side">
    <div class="controls">
      <label>opponent <input id="opponent" list="specs" value="${state.opponent}" placeholder="none: you play both sides" size="18"></label>
      <datalist id="specs">${SPECS.map(s => html`<option value="${s}">`)}</datalist>
      <label>you play <select id="human"><option value="black">Black</option><option value="white">White</option></select></label>
      <label><input type="checkbox" id="analyse"> values</label><br>
      <button id="new">New game</button><button id="undo">Undo</button><button id="pass">Pass</button>
      <button id="back" title="previous move">◀</button><button id="forward" title="next move">▶</button>
      <button id="save">Save SGF</button><label class="file">Open SGF <input type="file" id="open" accept=".sgf"></label>
    </div>
    <p id="status"></p><p id="message" class="message"></p><p id="verdict"></p>
    <p id="book"></p><p id="agent"></p><div id="values"></div><div id="refutations-box"></div></div></div>`);
  const $ = id => document.getElementById(id);
  $("analyse").checked = localStorage.getItem("values") !== "off";

  function say(text, kind = "") { $("message").textContent = text; $("message").className = "message " + kind; }

  function draw() {
    const v = state.view;
    show($("board-box"), boardSvg(v, state.values, state.agent));
    $("status").textContent = `ply ${v.ply} of 24, ${v.plies_left} left; ${v.over ? "game over" : v.player[0].toUpperCase() + v.player.slice(1) + " to move"}; ` +
      `Black ${v.score.black}, White ${v.score.white} (komi included)` + (state.record ? `; record move ${state.moves.length} of ${state.record.length}` : "");
    $("verdict").textContent = v.verdict ? `Result: ${v.verdict}` : "";
    $("book").textContent = v.book !== null ? `The opening book plays ${moveName(v.book)} (marked with a square).` : "";
    show($("agent"), agentText(state.agent));
    // values asked and not answered yet: say so, whatever else has come back meanwhile (the agent's move)
    const waiting = !state.values && !state.valuesFailed && $("analyse").checked && !v.over;
    show($("values"), waiting ? html`<p class="muted" id="values-wait">solving…</p>` : valuesTable(state.values));
    if ($("keep-solving")) $("keep-solving").addEventListener("click", keepSolving);
    show($("refutations-box"), refutationsText(state.refutations));
    for (const g of document.querySelectorAll("#board .point")) g.addEventListener("click", () => click(Number(g.dataset.point)));
  }

  async function analyse() {
    const asked = ++state.asked, moves = state.moves.slice();
    state.values = state.agent = state.refutations = null;
    state.valuesFailed = false;
    draw();  // never another position's values: the board and the table are cleared before anything is asked
    if (!$("analyse").checked || state.view.over) return;
    const show = (key, promise) => promise.then(found => {
      if (asked !== state.asked) return;
      state[key] = found;
      draw();
    }).catch(e => {
      if (asked !== state.asked) return;
      if (key === "values") state.valuesFailed = true;  // the panel stops saying "solving…"
      draw();
      say(e.message, "error");
    });
    // The wins and losses first (quick), then the margins where the solver settles them in time.
    // While the compiled solver is still at work (pending), the search values show and the page asks
    // again: the server waits for the solver a while each time, so this is no busy loop.
    const wins = () => postJSON("/api/board/values", {moves, margins: false}).then(found => {
      if (asked === state.asked && found.pending) show("values", wins());
      else if (asked === state.asked && found.more) show("values", postJSON("/api/board/values", {moves, margins: true}));
      // A lost position: how hard each move is to answer, and the least-bad one.
      if (asked === state.asked && found.exact && found.moves.length && found.moves.every(v => v.wins === false)) {
        show("refutations", refutations(REFUTATION_ASKS));
      }
      return found;
    });
    // The server solves the replies for a few seconds at a time and keeps what it solved, so an answer
    // that did not reach every move (a busy machine) is asked for again, up to ``left`` times in all.
    const refutations = left => postJSON("/api/board/refutations", {moves}).then(found => {
      if (asked === state.asked && found.lost && !found.complete && left > 1) show("refutations", refutations(left - 1));
      return Object.assign(found, {last: left <= 1});
    });
    show("values", wins());
    show("agent", postJSON("/api/board/agent", {moves}));
  }

  async function keepSolving() {
    const asked = state.asked, moves = state.moves.slice();
    $("keep-solving").disabled = true;
    $("keep-solving").textContent = "solving the margins…";
    try {
      const found = await postJSON("/api/board/values", {moves, margins: true, seconds: 300});
      if (asked === state.asked) { state.values = found; draw(); }
    } catch (e) {
      if (asked === state.asked) say(e.message, "error");
    }
  }

  async function setMoves(moves) {
    const game = ++state.game;
    state.busy = false;  // an opponent still thinking about the position left behind is not waited for
    const view = await postJSON("/api/board/view", {moves});
    if (game !== state.game) return;
    state.view = view;
    state.moves = moves;
    showInAddress(moves);
    analyse();
  }

  function opponentToMove() {
    return state.opponent && !state.view.over && state.view.player !== state.human && !state.record;
  }

  async function reply() {
    if (!opponentToMove()) return;
    const game = state.game, ply = state.moves.length;
    const current = () => game === state.game && state.moves.length === ply;  // still the position it was asked
    state.busy = true;
    say(`${state.opponent} is thinking…`);
    try {
      const answer = await postJSON("/api/board/reply", {moves: state.moves, opponent: state.opponent, seed: state.seed + state.moves.length});
      if (!current()) return;  // New game, Undo or Open meanwhile: the answer is for a position left behind
      say(`${state.opponent} played ${moveName(answer.reply.move)} (${answer.reply.seconds.toFixed(2)} s of CPU)`);
      state.moves = answer.view.moves;
      state.view = answer.view;
      showInAddress(state.moves);
      analyse();
    } catch (e) {
      if (current()) say(e.message, "error");
    } finally {
      if (game === state.game) state.busy = false;
    }
  }

  async function play(move) {
    if (state.busy) return say("wait for the opponent's move");
    if (state.view.over) return say("the game is over: New game or Undo", "error");
    if (opponentToMove()) return say("it is the opponent's turn");
    try {
      const view = await postJSON("/api/board/play", {moves: state.moves, move});
      state.record = null;               // a move played leaves the record: play on from here
      state.moves = view.moves;
      state.view = view;
      showInAddress(state.moves);
      say("");
      analyse();
      await reply();
    } catch (e) {
      say(e.body && e.body.illegal ? `refused: ${e.message}` : e.message, "error");
    }
  }
  const click = point => play(point);

  async function newGame() {
    state.record = null;
    state.seed = Math.floor(Math.random() * 1e6);
    say("");  // an opponent still thinking about the old game is not waited for, nor shown
    await setMoves([]);
    await reply();
  }

  async function undo() {
    const moves = state.moves.slice();
    if (!moves.length) return say("nothing to undo");
    moves.pop();
    // Against an opponent, back to your own turn: your last move and the reply to it.
    if (state.opponent && !state.record && moves.length && (moves.length % 2 === 0 ? "black" : "white") !== state.human) moves.pop();
    say("");
    await setMoves(moves);
  }

  async function save() {
    const names = state.opponent ? (state.human === "black" ? ["you", state.opponent] : [state.opponent, "you"]) : ["Black", "White"];
    const {sgf} = await postJSON("/api/board/sgf", {moves: state.moves, black: names[0], white: names[1]});
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([sgf], {type: "application/x-go-sgf"}));
    link.download = "littlego-game.sgf";
    link.click();
  }

  async function open(file) {
    try {
      const game = await postJSON("/api/board/open", {sgf: await file.text()});
      state.record = game.moves;
      say(`opened ${file.name}: Black ${game.black ?? "?"}, White ${game.white ?? "?"}${game.result ? ", result " + game.result : ""}; step with ◀ ▶`);
      await setMoves(game.moves);
    } catch (e) {
      say(e.message, "error");
    }
  }

  const guard = task => async () => { try { await task(); } catch (e) { say(e.message, "error"); } };
  $("opponent").addEventListener("change", guard(async () => {
    state.opponent = $("opponent").value.trim();
    localStorage.setItem("opponent", state.opponent);
    await reply();
  }));
  $("human").addEventListener("change", guard(async () => { state.human = $("human").value; await reply(); }));
  $("analyse").addEventListener("change", () => {
    localStorage.setItem("values", $("analyse").checked ? "on" : "off");
    analyse();
    draw();
  });
  $("new").addEventListener("click", guard(newGame));
  $("undo").addEventListener("click", guard(undo));
  $("pass").addEventListener("click", () => play(PASS));
  $("save").addEventListener("click", guard(save));
  $("open").addEventListener("change", () => $("open").files[0] && open($("open").files[0]));
  $("back").addEventListener("click", guard(async () => {
    if (!state.moves.length) return;
    state.record = state.record || state.moves.slice();
    await setMoves(state.moves.slice(0, -1));
  }));
  $("forward").addEventListener("click", guard(async () => {
    if (state.record && state.moves.length < state.record.length) await setMoves(state.record.slice(0, state.moves.length + 1));
  }));
  // The position the address names (a bookmark, a shared link, a reload), else the empty board.
  let start = [];
  try { start = movesInAddress(); } catch (e) { say(e.message, "error"); }
  setMoves(start).catch(e => { say(e.message, "error"); if (start.length) setMoves([]); });
  return () => { state.asked++; };
}
