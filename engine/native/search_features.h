/* Part of search.c (included once, there): the features of engine/features.py.
 *
 * Their order is FEATURE_TABLE's: the build passes FEATURE_COUNT and each feature's index as
 * FEATURE_<NAME> (engine/native/search.py), as it passes the game's numbers, so that a C
 * computation of a feature the table lacks does not compile, and one the table has but the C
 * never computes is found when the library loads (its slot stays unwritten). */

/* ---- the features and the evaluation: engine/features.py ---- */

static void group_risk(bb stones, bb empty, int *in_atari, int *in_two) {
    *in_atari = *in_two = 0;
    while (stones) {
        bb group = grow(stones & -stones, stones);
        stones ^= group;
        bb liberties = nbrs(group) & empty;
        if ((liberties & (liberties - 1)) == 0) {
            *in_atari += count(group);
        } else {
            bb rest = liberties & (liberties - 1);
            if ((rest & (rest - 1)) == 0) *in_two += count(group);
        }
    }
}

/* Gray's bit-quads over the board padded with an empty border, a row pair at a time */
static int quad_row(int upper, int lower) {
    int total = 0;
    for (int left = -1; left < BOARD_SIZE; left++) {
        int cell[4], stones = 0;
        for (int k = 0; k < 4; k++) {
            int row = k < 2 ? upper : lower, column = left + (k & 1);
            cell[k] = column >= 0 && column < BOARD_SIZE ? (row >> column) & 1 : 0;
            stones += cell[k];
        }
        if (stones == 1) total += 1;
        else if (stones == 3) total -= 1;
        else if (stones == 2 && cell[0] == cell[3]) total += 2;
    }
    return total;
}

static int euler_number(bb stones) {
    int total = QUAD_ROWS[0][stones & ROW] + QUAD_ROWS[(stones >> (BOARD_SIZE * (BOARD_SIZE - 1))) & ROW][0];
    for (int r = 0; r + 1 < BOARD_SIZE; r++)
        total += QUAD_ROWS[(stones >> (BOARD_SIZE * r)) & ROW][(stones >> (BOARD_SIZE * (r + 1))) & ROW];
    return total >= 0 ? total / 4 : -((-total + 3) / 4);       /* Python's floor division */
}

static int real_eyes(bb stones, bb other) {
    bb empty = FULL ^ stones ^ other, candidates = empty & ~nbrs(empty | other);
    int eyes = 0;
    for (; candidates; candidates &= candidates - 1) {
        int point = __builtin_ctz(candidates);
        if (count(DIAGONALS[point] & other) < (((bb)1 << point) & ~EDGE ? 2 : 1)) eyes++;
    }
    return eyes;
}

/* feature_values(position, 0), each at its FEATURE_<NAME> index */
static void feature_values(const pos_t *p, double *f) {
    bb own = p->own, opp = p->opp, empty = FULL ^ own ^ opp;
    int own_atari, own_two, opp_atari, opp_two;
    group_risk(own, empty, &own_atari, &own_two);
    group_risk(opp, empty, &opp_atari, &opp_two);
    double stone_margin = margin(p);
    f[FEATURE_MARGIN] = stone_margin;
    f[FEATURE_MARGIN_LATE] = stone_margin * (double)p->moves_played / (double)MAX_MOVES;
    f[FEATURE_LIBERTIES] = count(nbrs(own) & empty) - count(nbrs(opp) & empty);
    f[FEATURE_ATARI_OWN] = own_atari;
    f[FEATURE_ATARI_OPP] = opp_atari;
    f[FEATURE_TWO_LIBERTY] = own_two - opp_two;
    f[FEATURE_EULER] = euler_number(own) - euler_number(opp);
    f[FEATURE_EDGE] = count(own & EDGE) - count(opp & EDGE);
    f[FEATURE_CORNER] = count(own & CORNERS) - count(opp & CORNERS);
    f[FEATURE_EYES] = real_eyes(own, opp) - real_eyes(opp, own);
    f[FEATURE_CAPTURES] = 0;
    f[FEATURE_CENTRE] = count(own & CENTRE) - count(opp & CENTRE);
    f[FEATURE_CROSS] = count(own & CROSS) - count(opp & CROSS);
}

/* ---- the pattern weights: engine/patterns.py ---- */

/* WINDOW_TABLES[window][own nibble | opp nibble << 4]: the shape's index in PATTERNS, and each window's
 * top-left point: engine/patterns.py's, handed over by ls_set_windows when the library loads */
static int16_t WINDOW_TABLES[WINDOW_COUNT][256];
static int WINDOW_TOPS[WINDOW_COUNT];

/* pattern_indices(own, opp): each window's shape, sorted */
static void pattern_indices(const pos_t *p, int *out) {
    for (int w = 0; w < WINDOW_COUNT; w++) {
        int top = WINDOW_TOPS[w];
        int own = ((p->own >> top) & 3) | ((p->own >> (top + BOARD_SIZE - 2)) & 12);
        int opp = ((p->opp >> top) & 3) | ((p->opp >> (top + BOARD_SIZE - 2)) & 12);
        int index = WINDOW_TABLES[w][own | opp << 4], k = w;
        for (; k > 0 && out[k - 1] > index; k--) out[k] = out[k - 1];
        out[k] = index;
    }
}
