/* Part of search.c (included once, there): the rules of engine/position.py, field for field. */

/* ---- the rules: engine/position.py ---- */

typedef struct {            /* engine.position.Position, field for field */
    bb own, opp, prev_own, prev_opp;
    int32_t player, moves_played, is_over, regular;
} pos_t;

static bb EDGE, CORNERS, CENTRE, CROSS, NEIGHBOURS[N], DIAGONALS[N];
static int QUAD_ROWS[ROW + 1][ROW + 1];

static inline int count(bb m) { return __builtin_popcount(m); }
static inline int passed(const pos_t *p) { return p->own == p->prev_own && p->opp == p->prev_opp; }

/* Position.verdict for an empty point with no empty neighbour: whether it is legal */
static int enclosed_legal(const pos_t *p, int point) {
    bb bit = (bb)1 << point, own_after = p->own | bit;
    bb empty = FULL ^ p->own ^ p->opp ^ bit;
    bb liberties = nbrs(grow(bit, own_after));
    if (liberties & empty) return 1;
    bb dead = p->opp ^ grow(p->opp & nbrs(empty), p->opp);
    if (!(liberties & dead)) return 0;
    return !((p->prev_own & ~p->own) && own_after == p->prev_own && (p->opp ^ dead) == p->prev_opp);
}

static bb legal_mask(const pos_t *p) {
    if (p->is_over) return 0;
    bb empty = FULL ^ (p->own | p->opp);
    bb legal = empty & nbrs(empty), enclosed = empty ^ legal;
    for (; enclosed; enclosed &= enclosed - 1)
        if (enclosed_legal(p, __builtin_ctz(enclosed))) legal |= enclosed & -enclosed;
    return legal;
}

/* Position.play_point for a move known to be legal (a point of legal_mask, or PASS) */
static void play(const pos_t *p, int move, pos_t *out) {
    int moves_played = p->moves_played + 1;
    if (move == PASS) {
        *out = (pos_t){p->opp, p->own, p->opp, p->own, OPPONENT(p->player), moves_played,
                       moves_played >= MAX_MOVES || passed(p), p->regular};
        return;
    }
    bb bit = (bb)1 << move, own_after = p->own | bit, empty = FULL ^ own_after ^ p->opp;
    bb dead = 0;    /* in a regular position only a neighbouring group can be captured */
    if (!p->regular || (NEIGHBOURS[move] & p->opp)) dead = p->opp ^ grow(p->opp & nbrs(empty), p->opp);
    *out = (pos_t){p->opp ^ dead, own_after, p->opp, p->own, OPPONENT(p->player), moves_played,
                   moves_played >= MAX_MOVES, p->regular};
}

/* Position.margin: the stone margin for the side to move, komi included, in Python's order */
static double margin(const pos_t *p) {
    int own = count(p->own), opp = count(p->opp);
    return p->player == BLACK ? (double)(own - opp) - KOMI : ((double)own + KOMI) - (double)opp;
}
