"""A plain Little-Go course agent whose evaluation constants are written in its code.

It is the Python example for tuning "an agent as it is", its constants found and replaced
in a copy of this file with no weights file to read (docs/tune-your-agent.md). It speaks
the course's file protocol: input.txt holds the colour to move (1 Black, 2 White), then the
previous and the current board, five lines of five digits each; it writes "i,j" or "PASS"
to output.txt. It keeps no state between moves.

Search: negamax with alpha-beta to DEPTH plies, a pass included as a move, ties broken by
point order (the pass last), so a move depends on the boards alone. The number of plies
played is guessed from the stones on the board; a leaf at the 24th ply, or after two passes,
is scored by the final count.

Evaluation, from the side to move's view: its stones less the opponent's, with komi, plus
- LIBERTY_WEIGHT (module constant) times its groups' liberties less the opponent's;
- EYE_WEIGHT (module constant) times its eyes (empty points all of whose neighbours it holds)
  less the opponent's;
- atari_weight (a local of evaluate) times the opponent's stones in atari;
- danger_weight (a local of evaluate) times its own stones in atari, subtracted;
- WEIGHTS["edge"] and WEIGHTS["centre"] times its stones on the edge / the inner 3x3 less
  the opponent's.
The defaults are deliberately mediocre (an edge weight that likes the edge, a small atari
weight), so that tuning has room to improve the agent. SIZE, KOMI, MAX_MOVES are rules.
Standard library only, Python 3.7.
"""

SIZE = 5
KOMI = 2.5
MAX_MOVES = 24
DEPTH = 2

LIBERTY_WEIGHT = 1
EYE_WEIGHT = 0.25
WEIGHTS = {"edge": 0.5, "centre": 0.25}

POINTS = SIZE * SIZE
EMPTY, BLACK, WHITE = 0, 1, 2
PASS = -1

NEIGHBOURS = []
for _i in range(SIZE):
    for _j in range(SIZE):
        NEIGHBOURS.append(
            [
                (_i + di) * SIZE + _j + dj
                for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= _i + di < SIZE and 0 <= _j + dj < SIZE
            ]
        )
EDGE = [i in (0, SIZE - 1) or j in (0, SIZE - 1) for i in range(SIZE) for j in range(SIZE)]
CENTRE = [0 < i < SIZE - 1 and 0 < j < SIZE - 1 for i in range(SIZE) for j in range(SIZE)]


def read_input(path="input.txt"):
    """(colour to move, previous board, current board); a board is a list of 25 cells."""
    with open(path) as handle:
        lines = [line.strip() for line in handle.read().split("\n") if line.strip()]
    colour = int(lines[0])
    previous = [int(c) for line in lines[1 : 1 + SIZE] for c in line[:SIZE]]
    current = [int(c) for line in lines[1 + SIZE : 1 + 2 * SIZE] for c in line[:SIZE]]
    return colour, previous, current


def group(board, point):
    """(the stones of the group at point, the number of its liberties)."""
    colour = board[point]
    stones, liberties, frontier = {point}, set(), [point]
    while frontier:
        for n in NEIGHBOURS[frontier.pop()]:
            if board[n] == EMPTY:
                liberties.add(n)
            elif board[n] == colour and n not in stones:
                stones.add(n)
                frontier.append(n)
    return stones, len(liberties)


def play(board, point, colour):
    """The board after colour plays point, captures removed; None for a suicide."""
    cells = list(board)
    cells[point] = colour
    for n in NEIGHBOURS[point]:
        if cells[n] == 3 - colour:
            stones, liberties = group(cells, n)
            if liberties == 0:
                for stone in stones:
                    cells[stone] = EMPTY
    if group(cells, point)[1] == 0:
        return None
    return cells


def legal_moves(board, previous, colour):
    """[(point, board after it)] for the legal placements in point order (KO: not back to previous)."""
    moves = []
    for point in range(POINTS):
        if board[point] == EMPTY:
            after = play(board, point, colour)
            if after is not None and after != previous:
                moves.append((point, after))
    return moves


def final_score(board, colour):
    """The real result for colour (stones and komi), scaled far above any evaluation."""
    mine = board.count(colour)
    theirs = board.count(3 - colour)
    return 100.0 * (mine - theirs + (KOMI if colour == WHITE else -KOMI))


def evaluate(board, colour):
    """The board's value for colour: stones with komi, then the weighted terms."""
    atari_weight = 1
    danger_weight = 0.5
    value = board.count(colour) - board.count(3 - colour) + (KOMI if colour == WHITE else -KOMI)
    seen = set()
    for point in range(POINTS):
        owner = board[point]
        if owner == EMPTY:
            sides = set(board[n] for n in NEIGHBOURS[point])
            if len(sides) == 1 and EMPTY not in sides:
                value += EYE_WEIGHT if colour in sides else -EYE_WEIGHT
            continue
        sign = 1 if owner == colour else -1
        value += sign * (WEIGHTS["edge"] * EDGE[point] + WEIGHTS["centre"] * CENTRE[point])
        if point not in seen:
            stones, liberties = group(board, point)
            seen |= stones
            value += sign * LIBERTY_WEIGHT * liberties
            if liberties == 1:
                value += atari_weight * len(stones) if sign < 0 else -danger_weight * len(stones)
    return value


def negamax(board, previous, passed, depth, left, colour, alpha, beta):
    """The value for colour, to move on board (its KO board previous), depth plies deep."""
    if left <= 0:
        return final_score(board, colour)
    if depth == 0:
        return evaluate(board, colour)
    best = None
    for _, after in legal_moves(board, previous, colour):
        value = -negamax(after, board, False, depth - 1, left - 1, 3 - colour, -beta, -alpha)
        if best is None or value > best:
            best = value
        alpha = max(alpha, value)
        if alpha >= beta:
            return best
    if passed:
        value = final_score(board, colour)  # a second pass ends the game
    else:
        value = -negamax(board, board, True, depth - 1, left - 1, 3 - colour, -beta, -alpha)
    return value if best is None or value > best else best


def plies_left(board, colour):
    """Plies still to play, this one included, guessed from the stones (captures make it an overestimate)."""
    played = POINTS - board.count(EMPTY)
    if played % 2 != (0 if colour == BLACK else 1):
        played += 1
    return max(1, MAX_MOVES - played)


def choose_move(colour, previous, current):
    """The point (0..24) or PASS with the best negamax value; the first in point order on a tie."""
    left = plies_left(current, colour)
    depth = min(DEPTH, left)
    alpha, beta = -float("inf"), float("inf")
    best_point, best_value = PASS, None
    for point, after in legal_moves(current, previous, colour):
        value = -negamax(after, current, False, depth - 1, left - 1, 3 - colour, -beta, -alpha)
        if best_value is None or value > best_value:
            best_point, best_value = point, value
            alpha = max(alpha, value)
    if previous == current:
        value = final_score(current, colour)  # the opponent passed (or the game starts): a pass ends it
    else:
        value = -negamax(current, current, True, depth - 1, left - 1, 3 - colour, -beta, -alpha)
    if best_value is None or value > best_value:
        best_point = PASS
    return best_point


def main():
    colour, previous, current = read_input()
    point = choose_move(colour, previous, current)
    answer = "PASS" if point == PASS else f"{point // SIZE},{point % SIZE}"
    with open("output.txt", "w") as handle:
        handle.write(answer)


if __name__ == "__main__":
    main()
