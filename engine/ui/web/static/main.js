// The page's router: #/runs (the list), #/runs/NAME (one run), #/board (the analysis board).
import {showRuns, showRun} from "./runs.js";
import {showBoard} from "./board.js";

let leave = null;        // what the current view does when another is shown (stop polling)

function route() {
  if (leave) leave();
  leave = null;
  const main = document.getElementById("main");
  const hash = location.hash || "#/runs";
  document.getElementById("nav-runs").classList.toggle("active", hash.startsWith("#/runs"));
  document.getElementById("nav-board").classList.toggle("active", hash.startsWith("#/board"));
  if (hash.startsWith("#/runs/")) {
    leave = showRun(main, decodeURIComponent(hash.slice("#/runs/".length)));
  } else if (hash.startsWith("#/board")) {
    leave = showBoard(main);
  } else {
    leave = showRuns(main);
  }
}

window.addEventListener("hashchange", route);
route();
