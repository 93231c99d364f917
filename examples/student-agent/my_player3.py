"""A small Little-Go agent whose evaluation reads its weights from weights.json.

It speaks the course's file protocol: input.txt holds the colour to move (1 Black, 2 White),
then the previous and the current board, five lines of five digits each; it writes "i,j" or
"PASS" to output.txt. It looks two plies ahead (each of its moves, then the reply worst for
it, a pass included) and scores a board with the stone count plus four named weights:

- ``liberties``: its groups' liberties less the opponent's;
- ``atari``: the opponent's stones in groups with one liberty less its own;
- ``edge``: its stones on the edge less the opponent's;
- ``centre``: its stones on the inner 3x3 less the opponent's.

A weight missing from weights.json keeps its default and keys it does not know are ignored,
so the file can carry other settings; a file that is there but not a JSON object of numbers
stops the agent (a tuner must never see the defaults play in place of its weights). The
search breaks ties by point order, so a move depends on the boards and the weights alone.
Standard library only, Python 3.7.
"""

import json
import os

SIZE = 5
POINTS = SIZE * SIZE
EMPTY, BLACK, WHITE = 0, 1, 2
HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS_FILE = os.path.join(HERE, "weights.json")
DEFAULT_WEIGHTS = {"liberties": 0.2, "atari": 1.0, "edge": -0.3, "centre": 0.3}

# Precomputed once: each point's neighbours, the edge and the centre.
NEIGHBOURS = [
    [
        (i + di) * SIZE + j + dj
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= i + di < SIZE and 0 <= j + dj < SIZE
    ]
    for i in range(SIZE)
    for j in range(SIZE)
]
EDGE = [i in (0, SIZE - 1) or j in (0, SIZE - 1) for i in range(SIZE) for j in range(SIZE)]
CENTRE = [0 < i < SIZE - 1 and 0 < j < SIZE - 1 for i in range(SIZE) for j in range(SIZE)]


def load_weights(path=WEIGHTS_FILE):
    """The evaluation's weights: the defaults, overridden by the numbers the file names."""
    weights = dict(DEFAULT_WEIGHTS)
    if not os.path.exists(path):
        return weights
    with open(path) as handle:
        found = json.load(handle)
    if not isinstance(found, dict):
        raise ValueError(f"{path}: not a JSON object")
    for name in weights:
        if name in found:
            value = found[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{path}: {name} is not a number")
            weights[name] = float(value)
    return weights


def read_input(path="input.txt"):
    """(colour to move, previous board, current board); a board is a tuple of 25 cells."""
    with open(path) as handle:
        lines = [line.strip() for line in handle.read().split("\n") if line.strip()]
    colour = int(lines[0])
    previous = tuple(int(c) for line in lines[1 : 1 + SIZE] for c in line)
    current = tuple(int(c) for line in lines[1 + SIZE : 1 + 2 * SIZE] for c in line)
    return colour, previous, current


def group(board, point):
    """(the stones of the group at ``point``, its liberties), both sets."""
    colour = board[point]
    stones, liberties, frontier = {point}, set(), [point]
    while frontier:
        for neighbour in NEIGHBOURS[frontier.pop()]:
            if board[neighbour] == EMPTY:
                liberties.add(neighbour)
            elif board[neighbour] == colour and neighbour not in stones:
                stones.add(neighbour)
                frontier.append(neighbour)
    return stones, liberties


def play(board, point, colour):
    """The board after ``colour`` plays ``point`` (captures removed), or None for a suicide."""
    cells = list(board)
    cells[point] = colour
    for neighbour in NEIGHBOURS[point]:
        if cells[neighbour] == 3 - colour:
            stones, liberties = group(cells, neighbour)
            if not liberties:
                for stone in stones:
                    cells[stone] = EMPTY
    if not group(cells, point)[1]:
        return None
    return tuple(cells)


def legal_moves(board, previous, colour):
    """[(point, board after it)] for every legal placement: empty, not suicide, not the KO recapture."""
    moves = []
    for point in range(POINTS):
        if board[point] == EMPTY:
            after = play(board, point, colour)
            if after is not None and after != previous:
                moves.append((point, after))
    return moves


def evaluate(board, colour, weights):
    """The board's value for ``colour``: stones, then the weighted terms, each its own less the opponent's."""
    value = 0.0
    seen = set()
    for point in range(POINTS):
        owner = board[point]
        if owner == EMPTY:
            continue
        sign = 1.0 if owner == colour else -1.0
        value += sign * (1.0 + weights["edge"] * EDGE[point] + weights["centre"] * CENTRE[point])
        if point not in seen:
            stones, liberties = group(board, point)
            seen |= stones
            value += sign * weights["liberties"] * len(liberties)
            if len(liberties) == 1:
                value -= sign * weights["atari"] * len(stones)
    return value


def choose_move(colour, previous, current, weights):
    """The point (0..24) whose worst reply leaves the best board, or None to pass when nothing is legal."""
    mine = legal_moves(current, previous, colour)
    if not mine:
        return None
    # The moves that look best at once first, so the search's cut-offs come early.
    mine.sort(key=lambda move: (-evaluate(move[1], colour, weights), move[0]))
    best_point, best_value = None, None
    for point, after in mine:
        worst = evaluate(after, colour, weights)  # the opponent may pass
        for _, reply in legal_moves(after, current, 3 - colour):
            worst = min(worst, evaluate(reply, colour, weights))
            if best_value is not None and worst <= best_value:
                break  # no better than a move already found
        if best_value is None or worst > best_value:
            best_point, best_value = point, worst
    return best_point


def main():
    colour, previous, current = read_input()
    point = choose_move(colour, previous, current, load_weights())
    answer = "PASS" if point is None else f"{point // SIZE},{point % SIZE}"
    with open("output.txt", "w") as handle:
        handle.write(answer)


if __name__ == "__main__":
    main()
