// A plain Little-Go course agent whose evaluation constants are written in its code.
//
// The C++ example for tuning "an agent as it is": its constants are found and replaced in a
// copy of this file, with no weights file to read (docs/tune-your-agent.md). Built as the
// course builds it, `g++ -O2 *.cpp -o exe`. It reads input.txt (the colour to move, 1 Black or
// 2 White, then the previous and the current board, five lines of five digits each) and writes
// "i,j" or "PASS" to output.txt; it keeps no state between moves.
//
// Search: negamax with alpha-beta to DEPTH plies, a pass included as a move, ties broken by
// point order (the pass last), so a move depends on the boards alone. The plies played are
// guessed from the stones; a leaf at the 24th ply, or after two passes, is scored by the count.
//
// Evaluation, for the side to move: its stones less the opponent's, with komi, plus
//   ATARI_WEIGHT   (#define)          x the opponent's stones in atari
//   DANGER_WEIGHT  (const double)     x its own stones in atari, subtracted
//   LIBERTY_WEIGHT (const double)     x its groups' liberties less the opponent's
//   EDGE_WEIGHT    (const double)     x its stones on the edge less the opponent's
//   CENTRE_WEIGHT  (constexpr double) x its stones on the inner 3x3 less the opponent's
//   EYE_WEIGHT     (constexpr double) x its eyes (empty points it surrounds) less the opponent's
// The defaults are deliberately mediocre (a small atari weight, an edge weight that likes the
// edge) so that tuning has room to improve the agent. SIZE, KOMI, MAX_MOVES are the rules.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#define ATARI_WEIGHT 0.5

const double DANGER_WEIGHT = 0.25;
const double LIBERTY_WEIGHT = 0.1;
const double EDGE_WEIGHT = 0.4;
constexpr double CENTRE_WEIGHT = 0.2;
constexpr double EYE_WEIGHT = 0.5;
const int DEPTH = 3;

const int SIZE = 5;
const int POINTS = SIZE * SIZE;
const int MAX_MOVES = 24;
const double KOMI = 2.5;
const int PASS = -1;

struct Board {
    int c[POINTS];
};

static int neighbours[POINTS][4];
static int neighbourCount[POINTS];

static void setup() {
    for (int p = 0; p < POINTS; p++) {
        int i = p / SIZE, j = p % SIZE, n = 0;
        if (i > 0) neighbours[p][n++] = p - SIZE;
        if (i < SIZE - 1) neighbours[p][n++] = p + SIZE;
        if (j > 0) neighbours[p][n++] = p - 1;
        if (j < SIZE - 1) neighbours[p][n++] = p + 1;
        neighbourCount[p] = n;
    }
}

static bool same(const Board &a, const Board &b) { return std::memcmp(a.c, b.c, sizeof a.c) == 0; }

// The group at p: its stones into stones[] (returns how many) and its liberties into *liberties.
static int group(const Board &b, int p, int *stones, int *liberties) {
    bool inGroup[POINTS] = {false}, isLiberty[POINTS] = {false};
    int count = 0, libs = 0, colour = b.c[p];
    stones[count++] = p;
    inGroup[p] = true;
    for (int k = 0; k < count; k++) {
        int q = stones[k];
        for (int n = 0; n < neighbourCount[q]; n++) {
            int r = neighbours[q][n];
            if (b.c[r] == 0 && !isLiberty[r]) {
                isLiberty[r] = true;
                libs++;
            } else if (b.c[r] == colour && !inGroup[r]) {
                inGroup[r] = true;
                stones[count++] = r;
            }
        }
    }
    *liberties = libs;
    return count;
}

// Plays p for colour on a copy of b into out, captures removed; false for a suicide.
static bool play(const Board &b, int p, int colour, Board &out) {
    int stones[POINTS], libs;
    out = b;
    out.c[p] = colour;
    for (int n = 0; n < neighbourCount[p]; n++) {
        int r = neighbours[p][n];
        if (out.c[r] == 3 - colour) {
            int count = group(out, r, stones, &libs);
            if (libs == 0)
                for (int k = 0; k < count; k++) out.c[stones[k]] = 0;
        }
    }
    group(out, p, stones, &libs);
    return libs > 0;
}

static int stoneCount(const Board &b, int colour) {
    int n = 0;
    for (int p = 0; p < POINTS; p++) n += b.c[p] == colour;
    return n;
}

static double stoneScore(const Board &b, int colour) {
    return stoneCount(b, colour) - stoneCount(b, 3 - colour) + (colour == 2 ? KOMI : -KOMI);
}

static double finalScore(const Board &b, int colour) { return 100.0 * stoneScore(b, colour); }

static double evaluate(const Board &b, int colour) {
    double value = stoneScore(b, colour);
    bool seen[POINTS] = {false};
    int stones[POINTS], libs;
    for (int p = 0; p < POINTS; p++) {
        int owner = b.c[p], i = p / SIZE, j = p % SIZE;
        if (owner == 0) {
            int first = b.c[neighbours[p][0]];
            bool eye = first != 0;
            for (int n = 1; n < neighbourCount[p]; n++) eye = eye && b.c[neighbours[p][n]] == first;
            if (eye) value += first == colour ? EYE_WEIGHT : -EYE_WEIGHT;
            continue;
        }
        double sign = owner == colour ? 1.0 : -1.0;
        bool edge = i == 0 || j == 0 || i == SIZE - 1 || j == SIZE - 1;
        value += sign * (edge ? EDGE_WEIGHT : CENTRE_WEIGHT);
        if (!seen[p]) {
            int count = group(b, p, stones, &libs);
            for (int k = 0; k < count; k++) seen[stones[k]] = true;
            value += sign * LIBERTY_WEIGHT * libs;
            if (libs == 1) value += owner == colour ? -DANGER_WEIGHT * count : ATARI_WEIGHT * count;
        }
    }
    return value;
}

// The value for colour, to move on b (its KO board prev), searched depth plies deep.
static double negamax(const Board &b, const Board &prev, bool passed, int depth, int left, int colour, double alpha,
                      double beta) {
    if (left <= 0) return finalScore(b, colour);
    if (depth == 0) return evaluate(b, colour);
    double best = -1e18;
    Board after;
    for (int p = 0; p < POINTS; p++) {
        if (b.c[p] != 0 || !play(b, p, colour, after) || same(after, prev)) continue;
        double value = -negamax(after, b, false, depth - 1, left - 1, 3 - colour, -beta, -alpha);
        if (value > best) best = value;
        if (value > alpha) alpha = value;
        if (alpha >= beta) return best;
    }
    double value = passed ? finalScore(b, colour) : -negamax(b, b, true, depth - 1, left - 1, 3 - colour, -beta, -alpha);
    return value > best ? value : best;
}

static int chooseMove(int colour, const Board &prev, const Board &cur) {
    int played = POINTS - stoneCount(cur, 0);  // a guess: captures and passes make it low
    if (played % 2 != (colour == 1 ? 0 : 1)) played++;
    int left = MAX_MOVES - played > 1 ? MAX_MOVES - played : 1;
    int depth = DEPTH < left ? DEPTH : left;
    double alpha = -1e18, beta = 1e18, best = -1e18;
    int bestPoint = PASS;
    Board after;
    for (int p = 0; p < POINTS; p++) {
        if (cur.c[p] != 0 || !play(cur, p, colour, after) || same(after, prev)) continue;
        double value = -negamax(after, cur, false, depth - 1, left - 1, 3 - colour, -beta, -alpha);
        if (value > best) {
            best = value;
            bestPoint = p;
            if (value > alpha) alpha = value;
        }
    }
    // The opponent passed (or the game starts): a pass ends the game.
    double value = same(prev, cur) ? finalScore(cur, colour)
                                   : -negamax(cur, cur, true, depth - 1, left - 1, 3 - colour, -beta, -alpha);
    if (value > best) bestPoint = PASS;
    return bestPoint;
}

int main() {
    setup();
    std::ifstream in("input.txt");
    std::string line;
    std::getline(in, line);
    int colour = std::stoi(line);
    Board boards[2];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SIZE; i++) {
            std::getline(in, line);
            for (int j = 0; j < SIZE; j++) boards[k].c[i * SIZE + j] = line[j] - '0';
        }
    int p = chooseMove(colour, boards[0], boards[1]);
    FILE *out = std::fopen("output.txt", "w");
    if (p == PASS)
        std::fprintf(out, "PASS");
    else
        std::fprintf(out, "%d,%d", p / SIZE, p % SIZE);
    std::fclose(out);
    return 0;
}
