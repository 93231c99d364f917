/* littlego compiled searcher: engine/search.py's fixed-depth alpha-beta and engine/features.py's
 * evaluation, move for move, as a shared library for the tools (engine/native/search.py).
 *
 * It is a twin, not a variant: for the same position, weights and depth it visits the same
 * nodes in the same order and returns the same value, bit for bit. So everything here copies
 * the Python: the rules of engine/position.py (play_point, legal_mask and its verdict, the
 * `regular` shortcut), the eleven features in FEATURES order and the evaluator's sum in the
 * same order of double operations (the interpreter's own sum(): plain, or Neumaier's
 * compensated one from Python 3.12 on, which the caller says), the move ordering (a stable
 * sort, descending, of the same priorities as doubles), the exact-key transposition table
 * (every entry kept, cleared when it holds more than its limit at the start of a search,
 * as the dict is), the killers and history kept from search to search, the node count and
 * its every-1024-nodes check of the CPU deadline and the node budget. Compile with
 * -ffp-contract=off: a fused multiply-add would round differently from Python.
 *
 * The root's random tie-break stays in Python (the same random stream): ls_root returns the
 * equally best root moves and ls_store_root stores the one Python drew, as Searcher._root does.
 *
 * Reading guide: the rules (search_position.h), the features (search_features.h), the
 * evaluation, the transposition table (search_table.h), move ordering, negamax, then the entry
 * points (ls_*) that engine/native/search.py calls through ctypes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The game's numbers come from engine/native/compiler.py (engine/constants.py); the others the
 * search needs (KOMI, the colours, and WIN and TIE from engine/search.py) from searcher.py. */
#if !defined(BOARD_SIZE) || !defined(N) || !defined(PASS) || !defined(MAX_MOVES) || !defined(KOMI) || \
    !defined(BLACK) || !defined(WHITE) || !defined(WIN) || !defined(TIE)
#error "compile through engine/native/search.py, which passes the game's and the search's numbers"
#endif
#if 2 * N + 3 + 8 > 63 || MAX_MOVES > 255
#error "table keys are packed for at most 26 points and 255 plies"
#endif

#include "bitboard.h"
#define NONE (-1)           /* no move (the table has none for a position) */
#define COLOUR(colour) ((colour) == WHITE)         /* 0 Black, 1 White: an index */

#include "search_position.h"

#include "search_features.h"

/* ---- the searcher's state: engine.search.Searcher ---- */

typedef struct {                /* a table entry under its exact key; key_a == 0: an empty slot */
    uint64_t key_a, key_b;
    double value;
    int32_t depth;
    int8_t flag, move;
} entry_t;

enum { EXACT, LOWER, UPPER };
enum { RUNNING, LIMIT_REACHED, OUT_OF_MEMORY };     /* why a search stopped early */
#define PRESENT ((uint64_t)1 << 63)
#define INITIAL_SLOTS (1u << 16)

typedef struct {
    /* the static weights at each ply (make_evaluator's table: flat ones repeat, tapered ones move
     * from the opening's to the endgame's); the captures weight there is 0.0 and kept apart */
    double weights[MAX_MOVES + 1][FEATURE_COUNT];
    double captures_weight[MAX_MOVES + 1];
    double patterns[PATTERN_COUNT];  /* a weight for each shape of engine/patterns.py */
    int has_patterns;               /* 0: the evaluation has no pattern weights */
    /* the hidden layer of engine/network.py as its FixedLayer: unit j's bias, a weight a point of the
     * mover's stones and of the opponent's, and a weight a feature (per 1/denominators[i] of its value),
     * in 2**-FRACTION_BITS; its weight in the evaluation; units 0: none */
    int units;
    int64_t unit_bias[NETWORK_UNITS], unit_own[NETWORK_UNITS][N], unit_opp[NETWORK_UNITS][N];
    int64_t unit_features[NETWORK_UNITS][FEATURE_COUNT], denominators[FEATURE_COUNT];
    double unit_out[NETWORK_UNITS];
    int compensated;                /* sum() as Python 3.12+ does it (Neumaier) */
    int shape_depth;                /* -1: never order quiet moves by shape */
    entry_t *slots;
    uint64_t slot_mask, entries, table_limit;
    int killers[MAX_MOVES + 1][2], killer_count[MAX_MOVES + 1];
    int64_t history[2][N];
    int64_t nodes, node_stop;       /* node_stop < 0: none */
    double deadline;                /* process CPU seconds; < 0: none */
    int aborted;                    /* RUNNING, or why the search stopped */
    uint64_t root_a, root_b;        /* the last root searched, stored when Python has drawn its move */
    int root_depth;
    double root_value;
} searcher_t;

/* sum(terms) as Python adds floats: from 0, in order; with `compensated`, as Python 3.12+ does (Neumaier) */
static double python_sum(const double *terms, int count, int compensated) {
    double total = 0.0 + terms[0], compensation = 0.0;
    for (int i = 1; i < count; i++) {
        double x = terms[i];
        if (!compensated) {
            total += x;
            continue;
        }
        double t = total + x;
        compensation += fabs(total) >= fabs(x) ? (total - t) + x : (x - t) + total;
        total = t;
    }
    if (compensated && compensation != 0.0 && isfinite(compensation)) total += compensation;
    return total;
}

/* engine.network.LayerReader: each unit's sum in whole numbers (its bias, its weights at the mover's
 * stones and the opponent's, each feature's value in 1/denominator times its weight: exact in any
 * order), times 2**-FRACTION_BITS, squashed by tanh, times its out weight; the units' terms summed */
static double layer_value(const searcher_t *s, const pos_t *p, const double *f) {
    int64_t whole[FEATURE_COUNT];
    double terms[NETWORK_UNITS];
    for (int i = 0; i < FEATURE_COUNT; i++) whole[i] = f[i] != 0.0 ? llround(f[i] * (double)s->denominators[i]) : 0;
    for (int j = 0; j < s->units; j++) {
        int64_t sum = s->unit_bias[j];
        for (bb b = p->own; b; b &= b - 1) sum += s->unit_own[j][__builtin_ctz(b)];
        for (bb b = p->opp; b; b &= b - 1) sum += s->unit_opp[j][__builtin_ctz(b)];
        for (int i = 0; i < FEATURE_COUNT; i++) sum += s->unit_features[j][i] * whole[i];
        terms[j] = s->unit_out[j] * tanh(ldexp((double)sum, -FRACTION_BITS));
    }
    return python_sum(terms, s->units, s->compensated);
}

/* evaluate(position, captured) of make_evaluator: the static part as one sum() adds it, the features'
 * products, then the windows' pattern weights in the order of their shapes; then the hidden layer's
 * value */
static double evaluate(const searcher_t *s, const pos_t *p, int captured) {
    double f[FEATURE_COUNT], terms[FEATURE_COUNT + WINDOW_COUNT];
    feature_values(p, f);
    int ply = p->moves_played < MAX_MOVES ? p->moves_played : MAX_MOVES, count = FEATURE_COUNT;
    const double *w = s->weights[ply];
    for (int i = 0; i < FEATURE_COUNT; i++) terms[i] = w[i] * f[i];
    if (s->has_patterns) {
        int shapes[WINDOW_COUNT];
        pattern_indices(p, shapes);
        for (int k = 0; k < WINDOW_COUNT; k++) terms[count++] = s->patterns[shapes[k]];
    }
    double total = python_sum(terms, count, s->compensated);
    if (s->units) total += layer_value(s, p, f);
    return total + s->captures_weight[ply] * (double)captured;
}

/* terminal_value: +-WIN plus the stone margin */
static double terminal_value(const pos_t *p) {
    double m = margin(p);
    return m > 0 ? WIN + m : -WIN + m;
}

#include "search_table.h"

/* ---- move ordering: Searcher._ordered_moves ---- */

static inline int in_killers(const searcher_t *s, int ply, int point) {
    for (int k = 0; k < s->killer_count[ply]; k++)
        if (s->killers[ply][k] == point) return 1;
    return 0;
}

static double priority(const searcher_t *s, const pos_t *p, int point, int table_move, int ply,
                       const int *gains, bb near, int shaped) {
    if (point == table_move) return 1e12;
    if (gains[point]) return 1e9 + gains[point];
    if (in_killers(s, ply, point)) return 1e8;
    double value = (double)s->history[COLOUR(p->player)][point] + ((near >> point) & 1 ? 1e7 : 0);
    if (shaped) {
        bb bit = (bb)1 << point, empty = FULL ^ p->own ^ p->opp, after = empty ^ bit;
        int liberties = count(nbrs(grow(bit, p->own | bit)) & after);
        value += 1e7 * (liberties < 3 ? liberties : 3) - (liberties <= 1 ? 4e7 : 0);
        bb touching = NEIGHBOURS[point] & p->opp;
        if (touching && count(nbrs(grow(touching, p->opp)) & after) == 1) value += 5e7;
    }
    return value;
}

static int ordered_moves(const searcher_t *s, const pos_t *p, int table_move, int ply, int depth, int *moves) {
    int gains[N] = {0};     /* capturing_points: an atari group's liberty -> stones it captures */
    bb opp = p->opp, empty = FULL ^ p->own ^ opp;
    for (bb rest = opp; rest;) {
        bb group = grow(rest & -rest, opp);
        rest ^= group;
        bb liberties = nbrs(group) & empty;
        if (liberties && !(liberties & (liberties - 1))) gains[__builtin_ctz(liberties)] += count(group);
    }
    bb last = p->opp & ~p->prev_opp, near = last ? nbrs(last | nbrs(last)) : 0;
    int shaped = s->shape_depth >= 0 && depth >= s->shape_depth;
    double priorities[N + 1];
    int n = 0, first = passed(p) && table_move == NONE ? 1 : table_move == PASS;
    for (bb legal = legal_mask(p); legal; legal &= legal - 1) {
        int point = __builtin_ctz(legal), j = n++;
        double value = priority(s, p, point, table_move, ply, gains, near, shaped);
        for (; j > 0 && priorities[j - 1] < value; j--) {   /* a stable sort, highest first */
            priorities[j] = priorities[j - 1];
            moves[first + j] = moves[first + j - 1];
        }
        priorities[j] = value;
        moves[first + j] = point;
    }
    moves[first ? 0 : n] = PASS;
    return n + 1;
}

/* ---- negamax: Searcher._negamax ---- */

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double negamax(searcher_t *s, const pos_t *p, int depth, double alpha, double beta, int ply, int captured) {
    s->nodes++;
    if (!(s->nodes & 1023)) {
        if ((s->deadline >= 0 && cpu_seconds() > s->deadline) || (s->node_stop >= 0 && s->nodes > s->node_stop)) {
            s->aborted = LIMIT_REACHED;
            return 0.0;
        }
    }
    if (p->is_over) return terminal_value(p);
    if (depth == 0) return evaluate(s, p, captured);
    uint64_t a, b;
    table_key(p, &a, &b);
    const entry_t *e = find(s, a, b);
    int table_move = NONE;
    if (e->key_a) {
        table_move = e->move;
        if (e->depth >= depth) {
            if (e->flag == EXACT) return e->value;
            if (e->flag == LOWER && e->value >= beta) return e->value;
            if (e->flag == UPPER && e->value <= alpha) return e->value;
        }
    }
    double original_alpha = alpha, best_value = -INFINITY;
    int best_move = NONE, moves[N + 1], opp_stones = count(p->opp);
    int n = ordered_moves(s, p, table_move, ply, depth, moves);
    for (int i = 0; i < n; i++) {
        int move = moves[i];
        pos_t child;
        play(p, move, &child);
        double value = -negamax(s, &child, depth - 1, -beta, -alpha, ply + 1,
                                -(captured + opp_stones - count(child.own)));
        if (s->aborted) return 0.0;
        if (value > best_value) {
            best_value = value;
            best_move = move;
            if (value > alpha) {
                alpha = value;
                if (alpha >= beta) {
                    if (move != PASS) {
                        if (!in_killers(s, ply, move)) {
                            s->killers[ply][1] = s->killers[ply][0];
                            s->killers[ply][0] = move;
                            s->killer_count[ply] = s->killer_count[ply] ? 2 : 1;
                        }
                        s->history[COLOUR(p->player)][move] += (int64_t)depth * depth;
                    }
                    break;
                }
            }
        }
    }
    int flag = best_value <= original_alpha ? UPPER : best_value >= beta ? LOWER : EXACT;
    store(s, a, b, depth, flag, best_value, best_move);
    return best_value;
}

/* ---- the entry points ---- */

__attribute__((constructor)) static void init_tables(void) {
    for (int point = 0; point < N; point++) {
        int i = point / BOARD_SIZE, j = point % BOARD_SIZE;
        NEIGHBOURS[point] = nbrs((bb)1 << point);
        DIAGONALS[point] = 0;
        for (int di = -1; di <= 1; di += 2)
            for (int dj = -1; dj <= 1; dj += 2)
                if (i + di >= 0 && i + di < BOARD_SIZE && j + dj >= 0 && j + dj < BOARD_SIZE)
                    DIAGONALS[point] |= (bb)1 << (BOARD_SIZE * (i + di) + j + dj);
        if (i == 0 || j == 0 || i == BOARD_SIZE - 1 || j == BOARD_SIZE - 1) EDGE |= (bb)1 << point;
    }
    CORNERS = ((bb)1 << 0) | ((bb)1 << (BOARD_SIZE - 1)) | ((bb)1 << (N - BOARD_SIZE)) | ((bb)1 << (N - 1));
    CENTRE = (bb)1 << (N / 2);
    CROSS = NEIGHBOURS[N / 2];
    for (int upper = 0; upper <= (int)ROW; upper++)
        for (int lower = 0; lower <= (int)ROW; lower++) QUAD_ROWS[upper][lower] = quad_row(upper, lower);
}

int ls_feature_count(void) { return FEATURE_COUNT; }

void ls_features(const pos_t *p, double *out) { feature_values(p, out); }

void ls_patterns(const pos_t *p, int *out) { pattern_indices(p, out); }

/* engine/patterns.py's WINDOW_TABLES (WINDOW_COUNT x 256) and WINDOW_TOPS, before any search */
void ls_set_windows(const int16_t *tables, const int *tops) {
    memcpy(WINDOW_TABLES, tables, sizeof(WINDOW_TABLES));
    memcpy(WINDOW_TOPS, tops, sizeof(WINDOW_TOPS));
}

uint32_t ls_legal_mask(const pos_t *p) { return legal_mask(p); }

void ls_play(const pos_t *p, int move, pos_t *out) { play(p, move, out); }

/* a searcher with these weights by ply ((MAX_MOVES + 1) rows of FEATURE_COUNT static weights, then
 * MAX_MOVES + 1 captures weights) and pattern weights (PATTERN_COUNT; NULL: none) whose table is cleared when a search starts with more than
 * `table_limit` entries; NULL: out of memory */
/* the hidden layer: `units` units, each as FixedLayer's bias, N own weights, N opp weights and
 * FEATURE_COUNT feature weights in `sums`; the features' `denominators`; each unit's out weight in `outs` */
searcher_t *ls_new(const double *weights, const double *captures_weight, const double *patterns, int units,
                   const int64_t *sums, const int64_t *denominators, const double *outs, int compensated,
                   int shape_depth, uint64_t table_limit) {
    if (units < 0 || units > NETWORK_UNITS) return NULL;
    searcher_t *s = calloc(1, sizeof(searcher_t));
    if (!s) return NULL;
    memcpy(s->weights, weights, sizeof(s->weights));
    memcpy(s->captures_weight, captures_weight, sizeof(s->captures_weight));
    if (patterns) memcpy(s->patterns, patterns, sizeof(s->patterns));
    s->has_patterns = patterns != NULL;
    s->units = units;
    for (int j = 0; j < units; j++) {
        const int64_t *unit = sums + (size_t)j * (1 + 2 * N + FEATURE_COUNT);
        s->unit_bias[j] = unit[0];
        memcpy(s->unit_own[j], unit + 1, sizeof(s->unit_own[j]));
        memcpy(s->unit_opp[j], unit + 1 + N, sizeof(s->unit_opp[j]));
        memcpy(s->unit_features[j], unit + 1 + 2 * N, sizeof(s->unit_features[j]));
        s->unit_out[j] = outs[j];
    }
    if (units) memcpy(s->denominators, denominators, sizeof(s->denominators));
    s->compensated = compensated;
    s->shape_depth = shape_depth;
    s->table_limit = table_limit;
    if (!table_reset(s, INITIAL_SLOTS)) {
        free(s);
        return NULL;
    }
    return s;
}

void ls_free(searcher_t *s) {
    if (s) free(s->slots);
    free(s);
}

int64_t ls_nodes(const searcher_t *s) { return s->nodes; }
void ls_set_nodes(searcher_t *s, int64_t nodes) { s->nodes = nodes; }
uint64_t ls_table_size(const searcher_t *s) { return s->entries; }

/* Search's start: the table cleared when it holds more than its limit, the limits set */
static void begin(searcher_t *s, double deadline, int64_t node_stop) {
    s->deadline = deadline;
    s->node_stop = node_stop;
    s->aborted = RUNNING;
    if (s->entries > s->table_limit && !table_reset(s, INITIAL_SLOTS)) s->aborted = OUT_OF_MEMORY;
}

/* Searcher._root up to the tie-break: the number of equally best moves written to
 * `best_moves` (in the order the search met them), their value in `*value`; -LIMIT_REACHED or
 * -OUT_OF_MEMORY when the search stopped early. `tie_break`: whether Python will draw among
 * near-equal moves. */
int ls_root(searcher_t *s, const pos_t *p, int depth, int tie_break, double deadline, int64_t node_stop,
            int *best_moves, double *value) {
    begin(s, deadline, node_stop);
    if (s->aborted) return -s->aborted;
    table_key(p, &s->root_a, &s->root_b);
    const entry_t *e = find(s, s->root_a, s->root_b);
    int moves[N + 1], n = ordered_moves(s, p, e->key_a ? e->move : NONE, 0, depth, moves), found = 0;
    int opp_stones = count(p->opp);
    double best_value = -INFINITY;
    for (int i = 0; i < n; i++) {
        pos_t child;
        play(p, moves[i], &child);
        int captured = opp_stones - count(child.own);
        double floor = tie_break ? best_value - TIE : best_value;
        double v = -negamax(s, &child, depth - 1, -INFINITY, -floor, 1, -captured);
        if (s->aborted) return -s->aborted;
        if (v > best_value + TIE || !found) {
            best_value = v;
            best_moves[0] = moves[i];
            found = 1;
        } else if (tie_break && v >= best_value - TIE) {
            best_moves[found++] = moves[i];
        }
    }
    s->root_depth = depth;
    s->root_value = *value = best_value;
    return found;
}

/* the root's entry, with the move Python chose; OUT_OF_MEMORY when it could not be stored */
int ls_store_root(searcher_t *s, int move) {
    store(s, s->root_a, s->root_b, s->root_depth, EXACT, s->root_value, move);
    return s->aborted;
}

/* Searcher.value's search (negamax from `ply`); `*aborted`: RUNNING, or why it stopped early */
double ls_value(searcher_t *s, const pos_t *p, int depth, double alpha, double beta, int ply, int captured,
                double deadline, int64_t node_stop, int *aborted) {
    begin(s, deadline, node_stop);
    double value = s->aborted ? 0.0 : negamax(s, p, depth, alpha, beta, ply, captured);
    *aborted = s->aborted;
    return value;
}
