"""What a run writes beside its checkpoint, and where: its folder (made, and removed again where no
generation finishes), ``run.log`` and what the run says when it starts, each generation's line in
``generations.jsonl`` and on the terminal, and the best individual's weights. ``loop`` decides what
happens; this module says it."""

import json
import logging
import os
import shutil
import sys
import time
from typing import Any, List, Mapping, Optional, Sequence, Set, TextIO

import multiprocessing_logging
from tqdm import tqdm

from engine.common.generation_record import GenerationRecord
from engine.common.progress import Progress, counter, duration_words
from engine.common.runfolder import CONFIG_COPY, EXTENDED, GENERATIONS, LOG_FILE, LogFormatter, safe_text
from engine.constants import MAX_MOVES
from engine.course.constant_roles import cost_note, past_limits
from engine.params import save_params
from engine.players.searcher import SearcherName
from engine.protocol import write_atomic
from evolve.agents.program_individual import best_file, save_agent_weights
from evolve.config import load_config, repeated_games
from evolve.experiment.config_keys import ConfigError, PlayMode, StrategyName
from evolve.experiment.schema import Config
from evolve.generations import generation_line, overfitting_warning, saturation_warning
from evolve.genome import Individual
from evolve.runs import best_params, provenance

log = logging.getLogger("evolve")
MOVES_A_SIDE = MAX_MOVES // 2  # the most moves a player makes in a game

BEST_PARAMS = "best-params.json"


# -- the folder and its log -----------------------------------------------------------------------
def new_folder(parent: str, name: str) -> str:
    """Create a fresh folder ``parent/name`` (or ``name-2``, ``-3``...): exclusive even against a concurrent run."""
    suffix = 1
    while True:
        path = os.path.join(parent, name if suffix == 1 else f"{name}-{suffix}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            suffix += 1


def start_log(run_dir: str, verbose: bool = False) -> logging.Logger:
    """The ``evolve`` logger writing to the run's ``run.log`` alone, the workers' records too."""
    logger = logging.getLogger("evolve")
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in list(logger.handlers):  # a previous run in this process
        logger.removeHandler(handler)
        handler.close()
    handler = logging.FileHandler(os.path.join(run_dir, LOG_FILE))
    handler.setFormatter(LogFormatter())  # a record may carry a student's words: shown safely
    logger.addHandler(handler)
    # Workers log through the parent's handler: the package needs the fork start method.
    multiprocessing_logging.install_mp_handler(logger)
    return logger


def remove_folder(run_dir: str) -> None:
    """Remove the folder of a new run that failed before its first generation: it holds nothing to resume
    (no checkpoint), and a resume of it would start from nothing."""
    logger = logging.getLogger("evolve")
    for handler in list(logger.handlers):
        if getattr(handler, "baseFilename", "").startswith(os.path.abspath(run_dir) + os.sep):
            logger.removeHandler(handler)
            handler.close()
    shutil.rmtree(run_dir, ignore_errors=True)
    print(safe_text(f"no generation finished: {run_dir} removed (it holds nothing to resume)"), file=sys.stderr)


def record_extension(run_dir: str, planned: int, generations: int) -> None:
    """Say in the run's log and in ``extended.json`` (for whoever reads the folder) that the run goes on
    to generation ``generations``, not ``planned``."""
    start_log(run_dir)
    log.info("run extended from %d to %d generations", planned, generations)
    record = {"generations": generations, "configured": _config_generations(run_dir)}
    write_atomic(os.path.join(run_dir, EXTENDED), json.dumps(record) + "\n")


def _config_generations(run_dir: str) -> Optional[int]:
    """The generations the run's config copy asks for (None where it cannot be read)."""
    try:
        return load_config(os.path.join(run_dir, CONFIG_COPY)).generations
    except (ConfigError, OSError):  # a config copy of an older schema: only the count was wanted
        return None


# -- what a run says when it starts ---------------------------------------------------------------
def _count(number: int, unit: str) -> str:
    return f"{number} {unit}" + ("" if number == 1 else "s")


def _searched_by(config: Config, searcher: SearcherName) -> str:
    """How the run's games are searched, in words: by the program's own code (a program individual), else
    by our ``searcher`` ("native" or "python")."""
    if config.individual is not None:
        return "searched by the program's own code"
    return f"searched by the {searcher} searcher"


def _where(description: Mapping[str, Any]) -> str:
    """Where games run, in words, for the log: executor, workers, threads, and the dashboard if any."""
    words: str = description["executor"] + (
        " at {}".format(description["scheduler"]) if "scheduler" in description else ""
    )
    words += ", {}, {}".format(_count(description["workers"], "worker"), _count(description["threads"], "thread"))
    return words + (", dashboard {}".format(description["dashboard"]) if description.get("dashboard") else "")


def tuned_settings(config: Config) -> List[str]:
    """A warning for each constant of an agent's code the run tunes that is a depth or a time limit (what tuning
    it costs), or whose range crosses the course's limits."""
    if config.individual is None or not config.individual.constants:
        return []
    lines = []
    for index, gene in enumerate(config.genes):
        low, high = config.bounds[gene]
        note = cost_note(gene, config.start.weights[0][index] if config.start.weights else high)
        if note is not None:
            lines.append(f"the run tunes {gene} in [{low:g}, {high:g}], {note}")
        crossed = past_limits(gene, low, high)
        if crossed is not None:
            lines.append(crossed)
    return lines


def announce(
    run_dir: str, config: Config, searcher: SearcherName, where: Mapping[str, Any], first: int, out: TextIO
) -> None:
    """Say in the log, and in a line on ``out``, what the run plays from generation ``first`` on: where its
    games run (``where``, an executor's describe()), how they are searched and played; warn of games its
    panel repeats, and where generation 0 starts from [start] params, say so in the log."""
    searched = _searched_by(config, searcher)
    log.info(
        "run %s: %s, generations %d..%d (generation 0 is the first population, then %d of evolution: "
        "'generations' counts those); games run on %s, %s",
        run_dir,
        config.name,
        first,
        config.generations,
        config.generations,
        _where(where),
        searched,
    )
    if config.individual is not None:
        play = "each move a process of the agent's, in the sandbox"
    elif config.fitness.play == PlayMode.AS_SHIPPED:
        play = "as shipped (at a node budget)"
    else:
        play = "to a fixed depth"
    print(safe_text(f"games run on {_where(where)}, {searched}, {play}"), file=out)
    regret = config.regret
    if regret is not None:
        asked = "one call of the agent a position, in the sandbox" if config.individual else "a fresh search each"
        line = (
            f"[regret]: {regret.won} won positions of {regret.positions} asked of every individual ({asked}), "
            f"weight {regret.weight:g}; the best's share of the held-out ones recorded beside its own"
        )
        log.info(line)
        print(safe_text(line), file=out)
    for line in repeated_games(config) + tuned_settings(config):
        log.warning(line)
        print(safe_text("warning: " + line), file=sys.stderr)
    start = config.start
    if first == 0 and start.params:
        log.info("generation 0 starts from %s, %s", ", ".join(start.params), _first_draws(config))


def _first_draws(config: Config) -> str:
    """How the strategy draws generation 0 from the start weights, in its own words."""
    if config.strategy is StrategyName.GA:
        return f"mutated copies of them and {100 * config.start.random:.0f}% of the rest at random"
    if config.strategy is StrategyName.CMAES:
        return f"CMA-ES's draws about their mean, a step of {config.cmaes.sigma:g} of each weight's range"
    return "SPSA's pairs of opposite perturbations about their mean"


# -- each generation ------------------------------------------------------------------------------
class GenerationBar:
    """A generation's progress: on a terminal (and unless ``drawn`` is False: --no-progress), a bar of its
    games (``games``), with the won positions the ruler has answered (of ``positions``, with [regret])
    beside it, and their rate while they are the work (the ruler asks its positions before the games);
    a bar of the positions where the generation plays no game. Elsewhere, lines on stderr every tenth
    of the work (``counter``). ``game`` and ``position`` are told how many more are done."""

    def __init__(self, number: int, games: int, positions: int, drawn: bool = True, title: str = "") -> None:
        """``title``: what the bar and lines say instead of "generation NUMBER"."""
        self.positions, self.answered, self.started, self.rate = positions, 0, time.time(), ""
        self.games_begun, self.played = False, 0
        self.counts_positions = positions > 0 and not games
        unit, total = ("position", positions) if self.counts_positions else ("game", games)
        self.bar: Optional[Any] = None
        self.lines: Optional[Progress] = None
        title = title or f"generation {number}"
        if drawn and sys.stderr.isatty():
            self.bar = tqdm(total=total, unit=unit, desc=title, leave=False)
        else:
            self.lines = counter(title, unit, total, bar=False)

    def game(self, done: int) -> None:
        self.games_begun = True
        self.played += done
        if self.bar is not None:
            self.bar.update(done)
        elif self.lines is not None and not self.counts_positions:
            self.lines(self.played)

    def position(self, done: int) -> None:
        self.answered += done
        if self.counts_positions:
            if self.bar is not None:
                self.bar.update(done)
            elif self.lines is not None:
                self.lines(self.answered)
            return
        if self.bar is None:
            return
        if not self.games_begun:
            self.rate = f", {self.answered / max(time.time() - self.started, 1e-9):.1f} positions/s"
        self.bar.set_postfix_str(f"{self.answered}/{self.positions} positions{self.rate}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.lines is not None:
            self.lines.close()


HOUR = 3600.0


class CostForecast:
    """What the run will cost, said once in its first generation in this process: after the first games, or
    in a run of positions alone ([regret] without a panel) after the first positions. It says the generation's
    games and positions (an individual's share), a worker's seconds for each as measured, the time a
    generation of as many and the generations left will take (a later one sized by ``later``: CMA-ES's and
    SPSA's elites measured again), with the verdict's games, and (past an hour) how much smaller a move's
    budget would have to be for the rest to fit an hour. ``game`` and ``position`` are told how many more are done; a
    generation asks its fitness positions before it plays its games (``evolve.rounds``), and ``positions``
    counts the best's held-out ones too (``held_out_won`` of them)."""

    def __init__(
        self,
        games: int,
        individuals: int,
        workers: int,
        generations: int,
        out: TextIO,
        description: str,
        verdict_games: int = 0,
        positions: int = 0,
        held_out_won: int = 0,
        later: Optional[int] = None,
        later_games: Optional[int] = None,
    ) -> None:
        """``verdict_games``: the games the run plays after its last generation (``evolve.verdict``);
        ``later``: the individuals a later generation measures (``RunTuner.later_candidates``; as many as
        this one's where None), whose fitness positions are in proportion; ``later_games``: the games it
        plays (in proportion where None; more where self-play, which needs a generation to draw its
        opponents from, begins)."""
        self.games, self.individuals, self.workers, self.generations = games, individuals, workers, generations
        self.out, self.description, self.verdict_games = out, description, verdict_games
        self.positions, self.held_out_won = positions, held_out_won
        self.later = individuals if later is None else later
        self.later_games = games * self.later / max(individuals, 1) if later_games is None else float(later_games)
        self.after = min(games, max(4, 2 * workers))  # enough games for every worker to have finished some
        # a tenth of the generation's positions: a position is cheap, and the first ones pay for the workers'
        # start (measured 2026-12-02: from the first 25 of 1,076 the forecast was twice the run's time)
        self.after_positions = min(positions, max(4, 2 * workers, positions // 10))
        self.started, self.done, self.answered, self.said = time.time(), 0, 0, False
        self.last_answer: Optional[float] = None  # when the last position came back

    def position(self, done: int) -> None:
        self.answered += done
        self.last_answer = time.time()
        if not self.said and not self.games and self.positions and self.answered >= self.after_positions:
            self._say()

    def game(self, done: int) -> None:
        self.done += done
        if self.said or self.done < self.after or not self.games:
            return
        self._say()

    def _say(self) -> None:
        self.said = True
        now = time.time()
        games_began = self.last_answer if self.answered and self.last_answer is not None else self.started
        # a worker's wall seconds a game and a position, every worker busy
        per_game = (now - games_began) * self.workers / self.done if self.done else 0.0
        per_position = (games_began - self.started if self.done else now - self.started) * self.workers
        per_position = per_position / self.answered if self.answered else 0.0
        held_out_seconds = per_position * self.held_out_won / self.workers  # the best's alone, every generation
        generation = (per_game * self.games + per_position * self.positions) / self.workers
        later = (
            held_out_seconds
            + (
                per_game * self.later_games
                + per_position * (self.positions - self.held_out_won) * self.later / max(self.individuals, 1)
            )
            / self.workers
        )
        # A verdict game has the agent on both sides: about twice a panel game's time.
        whole = generation + later * (self.generations - 1) + 2 * per_game * self.verdict_games / self.workers
        why = []
        if self.later != self.individuals:
            why.append(f"measures {self.later} individuals, the elites again")
        if self.games and self.later_games != self.games * self.later / max(self.individuals, 1):
            why.append(f"plays {self.later_games:g} games, self-play's among them")
        elites = (
            f" (each later one {' and '.join(why)}: about {duration_words(later)})"
            if why and self.generations > 1
            else ""
        )
        verdict = f" and the verdict's {self.verdict_games} games" if self.verdict_games and per_game else ""
        sources, work = [], []
        if self.answered:
            sources.append(f"{self.answered} positions")
            each = (self.positions - self.held_out_won) / max(self.individuals, 1)
            held = f", {self.held_out_won} held out for the best" if self.held_out_won else ""
            work.append(
                f"{self.positions} positions in this generation ({each:g} an individual{held}), "
                f"{per_position:.2f} s a position"
            )
        if self.done:
            sources.append(f"{self.done} games")
            work.append(
                f"{self.games} games in this generation ({self.games / max(self.individuals, 1):g} an individual), "
                f"{per_game:.2f} s a game"
            )
        line = (
            f"cost, from the first {' and '.join(sources)}: {' and '.join(work)} on each of "
            f"{self.workers} worker{'s' if self.workers != 1 else ''} ({self.description}): about "
            f"{duration_words(generation)} a generation of as many{elites} and {duration_words(whole)} for the "
            f"{self.generations} generation{'s' if self.generations != 1 else ''} to play{verdict}"
        )
        if whole > HOUR and not self.answered:
            line += (
                f"; to fit an hour, a game would have to take {per_game * HOUR / whole:.2f} s: a move's budget "
                f"{whole / HOUR:.1f} times smaller (an agent's own time limit, or its depth), at most "
                f"{per_game * HOUR / whole / MOVES_A_SIDE:.2f} s a move (a game holds {MOVES_A_SIDE} of its moves)"
            )
        elif whole > HOUR:
            line += (
                f"; to fit an hour, a move's budget would have to be {whole / HOUR:.1f} times smaller (an agent's "
                "own time limit, or its depth), or the positions fewer"
            )
        log.info(line)
        print(safe_text(line), file=self.out)
        self.out.flush()


def append_generation(run_dir: str, entry: GenerationRecord) -> None:
    """Add a generation's line to ``generations.jsonl``."""
    with open(os.path.join(run_dir, GENERATIONS), "a") as handle:
        handle.write(json.dumps(entry.to_json()) + "\n")


def rewrite_generations(run_dir: str, records: Sequence[GenerationRecord]) -> None:
    """``generations.jsonl`` holding ``records`` alone (a resume drops a generation cut off before its
    checkpoint), written atomically."""
    lines = "".join(json.dumps(entry.to_json()) + "\n" for entry in records)
    write_atomic(os.path.join(run_dir, GENERATIONS), lines)


def write_best(run_dir: str, config: Config, generation: int, best: Individual) -> None:
    """The hall of fame's ``best`` as a file of the run: ``best-params.json``, or for a program individual
    its weights in its own file's format."""
    if config.individual is not None:
        save_agent_weights(
            os.path.join(run_dir, best_file(config)),
            config,
            best,
            provenance(run_dir, config, generation, best.fitness.values),
        )
        return
    save_params(os.path.join(run_dir, BEST_PARAMS), best_params(run_dir, config, generation, best))


def show_generation(
    entry: GenerationRecord, out: TextIO, warned: Set[str], earlier: Sequence[GenerationRecord] = ()
) -> None:
    """A generation's line on ``out`` and in the log, and its warnings (saturation, and with [regret] the
    over-fitting of ``overfitting_warning`` over the ``earlier`` records and this one): in the log each time,
    on the terminal once a run of each kind (``warned``: the kinds said already, added to), not a flood."""
    line = generation_line(entry)
    if "legend" not in warned:  # once a run: what the line's figures are, which its own words cannot say
        warned.add("legend")
        print(fitness_legend(entry), file=out)
    print(line, file=out)
    out.flush()
    log.info(line)
    saturated = saturation_warning(entry.generation, entry.win_rate)
    if saturated:
        _warn(saturated, saturated.split(": ")[1].split(" (")[0], warned)
    overfitting = overfitting_warning(list(earlier) + [entry])
    if overfitting:
        _warn(overfitting, "over-fitting", warned)


def fitness_legend(entry: GenerationRecord) -> str:
    """What a generation line's ``best`` and its colours are, said once above the first."""
    parts = []
    if entry.games:
        parts.append(
            "best: the best individual's fitness, the mean of its win rates against each panel entry (weighted "
            "by the entries' weights, a game as Black counting black_weight times), not its share of all its "
            "games; then its mean stone margin; Black, White: the share of its games it won in each colour"
        )
    if entry.positions is not None:
        parts.append(
            "regret: kept, the share of [regret]'s won positions the best keeps (counted in best as a panel "
            "entry of [regret] weight); held out, its share of the held-out ones"
        )
    parts.append("mean, spread: the population's win rates; SE: the noise of one fitness")
    return "(" + "; ".join(parts) + ")"


def _warn(line: str, kind: str, warned: Set[str]) -> None:
    """``line`` in the log, and on stderr the first time a run says a warning of its ``kind``."""
    log.warning(line)
    if kind not in warned:
        warned.add(kind)
        print(f"warning: {line} (said once; the log has every generation it holds for)", file=sys.stderr)
