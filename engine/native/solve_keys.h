/* Part of solve.c (included once, there): the 8 symmetries and the table's keys. */

/* ---- symmetries and keys ---- */
static bb SYM[8][BOARD_SIZE][ROW + 1];   /* SYM[t][row][bits of that row] -> transformed mask */
static const int SYMPOINT[8][N] = SYMMETRY_POINTS;

static void init_tables(void) {
    init_columns();
    for (int t = 0; t < 8; t++)
        for (int r = 0; r < BOARD_SIZE; r++)
            for (int bits = 0; bits <= (int)ROW; bits++) {
                bb m = 0;
                for (int j = 0; j < BOARD_SIZE; j++)
                    if (bits >> j & 1) m |= (bb)1 << SYMPOINT[t][BOARD_SIZE * r + j];
                SYM[t][r][bits] = m;
            }
}
static inline bb transform(int t, bb m) {
    bb image = 0;
#pragma GCC unroll 8
    for (int r = 0; r < BOARD_SIZE; r++) image |= SYM[t][r][(m >> (BOARD_SIZE * r)) & ROW];
    return image;
}

/* the point the KO rule forbids (the mover's one stone just captured), or -1 */
static int ko_point(const pos_t *s) {
    bb lost = s->prev_own & ~s->own;
    if (!lost || (lost & (lost - 1))) return -1;
    int q = __builtin_ctz(lost);
    bb own = s->own, opp = s->opp, bit = lost;
    bb own_after = own | bit, empty = FULL ^ own_after ^ opp;
    bb dead = opp ^ grow(opp & nbrs(empty), opp);
    bb libs = nbrs(grow(bit, own_after));
    if ((own | opp) & bit) return -1;
    if (libs & empty) return -1;
    if (!(libs & dead)) return -1;
    if (own_after == s->prev_own && (opp ^ dead) == s->prev_opp) return q;
    return -1;
}

static inline int passed(const pos_t *s) { return s->own == s->prev_own && s->opp == s->prev_opp; }

/* Positions before this ply are keyed under the 8 symmetries: a key costs 8 images of the board,
 * and later positions are seldom met turned. Up to ply 20 (rather than 12) it proved 2,2 from the
 * empty board in 31M nodes instead of 44M. */
#define SYM_PLIES 20

static uint64_t key_of(const pos_t *s, int *which) {
    int ko = ko_point(s);
    uint64_t tail = ((uint64_t)(ko + 1) << 50) | ((uint64_t)passed(s) << 55)
                  | ((uint64_t)s->ply << 56) | ((uint64_t)(s->player - 1) << 61);
    if (s->ply >= SYM_PLIES) {
        if (which) *which = 0;
        return (uint64_t)s->own | ((uint64_t)s->opp << 25) | tail;
    }
    uint64_t best = ~(uint64_t)0;
    int bt = 0;
    for (int t = 0; t < 8; t++) {
        uint64_t k = (uint64_t)transform(t, s->own) | ((uint64_t)transform(t, s->opp) << 25)
                   | ((uint64_t)(ko < 0 ? 0 : SYMPOINT[t][ko] + 1) << 50);
        if (k < best) { best = k; bt = t; }
    }
    if (which) *which = bt;
    return best | (tail & ~((uint64_t)31 << 50));
}
