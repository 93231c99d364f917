/* littlego offline solver: exact win/loss of Little-Go positions under the course's rules.
 *
 * A compiled companion of engine/solver.py for work that pure Python cannot finish in
 * time: solving the opening and building the opening book. The rules are those of
 * engine/position.py (tests compare the two on thousands of positions). Boolean
 * negamax: a position is won when some move leads to a lost position for the other
 * side; the transposition table stores exact results, keyed by the board under the 8
 * symmetries, ply, colour to move, the KO point and whether the last move was a pass.
 * Each position's children are all made and settled where no search is needed (a game
 * over, a static bound, the table) before any is searched, and the rest are searched in
 * an order that finds the winning move first (RESULTS.md, 2026-11-25, has the figures).
 * A node costs about 2,900 instructions and, in a large table, a few cache misses: keys are
 * made from the parent's symmetric images, the children's entries are prefetched, and the
 * last move's positions skip the table (RESULTS.md, 2026-11-27, has the figures).
 *
 * Protocol (stdin -> stdout, one line each):
 *   wins  PLAYER PLY PREVIOUS CURRENT  ->  "1" or "0"       (side to move wins)
 *   moves PLAYER PLY PREVIOUS CURRENT  ->  "P:v P:v ..."    (each legal move, 1 = it wins)
 *   book  MAXPLY [PLAYER PLY PREVIOUS CURRENT]
 *         -> lines "PLAYER PLY PREVIOUS CURRENT MOVE", then "end": a winning move for every
 *            position up to MAXPLY that the side to move (Black from the empty board by
 *            default) meets if it follows these moves, whatever the other side plays
 * PLAYER is 1 (Black) or 2 (White); boards are 25 digits, row-major; a move is a
 * point 0..24 or 25 for a pass. A "stats" line is written to stderr after each command.
 *
 * Reading guide: the rules, the symmetries and keys (solve_keys.h), the transposition table,
 * the search and its static bounds, the book (solve_book.h), the input and main().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* The game's numbers are not written here: engine/native/compiler.py passes them from
 * engine/constants.py and engine/symmetry.py (BOARD_SIZE, N points, PASS = N, MAX_MOVES, the
 * colours, the stone margins that win after komi, the image of every point under the 8
 * symmetries) and the range of the table's size. */
#if !defined(BOARD_SIZE) || !defined(N) || !defined(PASS) || !defined(MAX_MOVES) || !defined(BLACK) || \
    !defined(WHITE) || !defined(BLACK_WINS_FROM) || !defined(WHITE_WINS_FROM) || !defined(SYMMETRY_POINTS) || \
    !defined(MIN_TABLE_BITS) || !defined(MAX_TABLE_BITS)
#error "compile through engine/native/compiler.py, which passes the game's numbers"
#endif
#if N > 25
#error "boards and keys are packed for at most 25 points"
#endif

#include "bitboard.h"

typedef struct {
    bb own, opp, prev_own, prev_opp;
    int player, ply, over;
} pos_t;

static bb NEIGHBOURS[N];   /* the points next to each point */

/* the points with two empty neighbours or more: two of the four directions hold one */
static inline bb roomy_points(bb empty) {
    bb right = (empty >> 1) & ~COLUMN_LAST, left = (empty << 1) & ~COLUMN_0;
    bb below = empty >> BOARD_SIZE, above = (empty << BOARD_SIZE) & FULL;
    return (right & left) | ((right | left) & (below | above)) | (below & above);
}

/* The position after a placement at p, or 0 when the judge rejects it; ``roomy`` is
 * roomy_points of the empty points of ``s``, the same for every p, so that a search makes it
 * once for all the children. */
static inline __attribute__((always_inline)) int play_at(const pos_t *s, int p, bb roomy, pos_t *out) {
    bb own = s->own, opp = s->opp, bit = (bb)1 << p;
    if (p == PASS) {
        out->own = opp; out->opp = own; out->prev_own = opp; out->prev_opp = own;
        out->player = OPPONENT(s->player); out->ply = s->ply + 1;
        out->over = out->ply >= MAX_MOVES || (own == s->prev_own && opp == s->prev_opp);
        return 1;
    }
    if ((own | opp) & bit) return 0;
    bb own_after = own | bit;
    bb empty = FULL ^ own_after ^ opp;
    bb dead = 0;
    /* Only an enemy group next to p can lose its last liberty there, and not one whose stone
     * next to p has another empty neighbour (a roomy point, as p is one of its neighbours):
     * most placements need no flood. */
    if (NEIGHBOURS[p] & opp & ~roomy) dead = opp ^ grow(opp & nbrs(empty), opp);
    if (!(NEIGHBOURS[p] & empty)) {
        bb libs = nbrs(grow(bit, own_after));
        if (!(libs & empty)) {
            if (!(libs & dead)) return 0;
            if ((s->prev_own & ~own) && own_after == s->prev_own && (opp ^ dead) == s->prev_opp) return 0;
        }
    }
    out->own = opp ^ dead; out->opp = own_after; out->prev_own = opp; out->prev_opp = own;
    out->player = OPPONENT(s->player); out->ply = s->ply + 1; out->over = out->ply >= MAX_MOVES;
    return 1;
}

/* the position after a placement at p, or 0 when the judge rejects it */
static int play(const pos_t *s, int p, pos_t *out) {
    return play_at(s, p, roomy_points(FULL ^ s->own ^ s->opp), out);
}

static int popcount(bb x) { return __builtin_popcount(x); }

/* the finished game won by the side to move (komi to White) */
static int terminal_win(const pos_t *s) {
    int d = popcount(s->own) - popcount(s->opp);
    return s->player == BLACK ? d >= BLACK_WINS_FROM : d >= WHITE_WINS_FROM;
}

#include "solve_keys.h"

/* ---- transposition table: exact results ----
 * A key (62 bits) is mixed by a bijection of 64-bit words; the low bits of the mix choose the
 * bucket and an entry keeps the rest, so an entry names its position exactly (no two keys share
 * one) in fewer bits than the key, leaving room for the result and the work it cost (log2 of the
 * nodes searched under it). A full bucket gives up its entry that cost the least work. The table
 * starts small and doubles while more than three quarters full, up to the size asked for: a small
 * solve never touches (and the system never clears) the memory of a large table. Doubling at half
 * full cost 1% fewer nodes but twice the memory, whose clearing by the system at first touch was
 * a tenth of the CPU of a 10M-node solve. */
#define BUCKET 4                             /* entries of 8 bytes */
#define TAG_SHIFT MIN_TABLE_BITS             /* the bucket index holds at least this many low bits */
#define TAG_MASK ((~(uint64_t)0) >> TAG_SHIFT)
#define RESULT_BIT ((uint64_t)1 << (64 - TAG_SHIFT))
#define WORK_SHIFT (65 - TAG_SHIFT)
#define WORK_MASK ((uint64_t)63 << WORK_SHIFT)
#if WORK_SHIFT + 6 > 63
#error "the table's entries need MIN_TABLE_BITS of at least 8"
#endif
#define VALID ((uint64_t)1 << 63)
static uint64_t *table;
static uint64_t table_mask, largest_mask;   /* bucket count - 1, now and at most */
static uint64_t filled;                     /* entries in use */

/* a bijection of 64-bit words (the finaliser of MurmurHash3): each step can be undone */
static inline uint64_t hash64(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return k;
}
static inline uint64_t *bucket_of(uint64_t mixed) { return table + BUCKET * (mixed & table_mask); }

/* whether the table holds the key whose mix is ``mixed``, and then its ``result`` */
static inline int probe(uint64_t mixed, int *result) {
    uint64_t tag = VALID | mixed >> TAG_SHIFT, *b = bucket_of(mixed);
    for (int i = 0; i < BUCKET; i++)
        if ((b[i] & (VALID | TAG_MASK)) == tag) { *result = (b[i] & RESULT_BIT) != 0; return 1; }
    return 0;
}

/* twice the buckets: an entry whose mix has the new index bit set moves to the new half */
static void double_table(void) {
    uint64_t half = table_mask + 1, bit = (uint64_t)1 << (__builtin_ctzll(half) - TAG_SHIFT);
    for (uint64_t i = 0; i < half; i++) {
        uint64_t *b = table + BUCKET * i, *moved = table + BUCKET * (i + half);
        int kept = 0, gone = 0;
        for (int j = 0; j < BUCKET; j++) {
            uint64_t entry = b[j];
            if (!(entry & VALID)) continue;
            if (entry & bit) moved[gone++] = entry;
            else b[kept++] = entry;
        }
        for (int j = kept; j < BUCKET; j++) b[j] = 0;
    }
    table_mask = 2 * half - 1;
}

/* keep ``result`` for the key whose mix is ``mixed``, whose search visited ``work`` nodes */
static void store(uint64_t mixed, int result, uint64_t work) {
    if (filled > (table_mask + 1) * BUCKET / 4 * 3 && table_mask < largest_mask) double_table();
    uint64_t *b = bucket_of(mixed);
    uint64_t cost = work ? 64 - __builtin_clzll(work) : 0;
    int victim = -1;
    uint64_t least = ~(uint64_t)0;
    for (int i = 0; i < BUCKET; i++) {
        if (!(b[i] & VALID)) { victim = i; filled++; break; }
        uint64_t w = b[i] & WORK_MASK;
        if (w < least) { least = w; victim = i; }
    }
    b[victim] = VALID | (mixed >> TAG_SHIFT) | (result ? RESULT_BIT : 0) | (cost << WORK_SHIFT);
}

/* ---- bounds that need no search ---- */

/* The stones of ``stones`` in groups with no more liberties than ``moves``, counted until they
 * pass ``budget``: a move takes at most one liberty from a group (a capture only gives some
 * back), so ``moves`` moves of the other side alone can capture no others. A count past the
 * budget already decides the bound, and most calls stop at the first group. */
static int lost_stones(bb stones, bb empty, int moves, int budget) {
    if (moves == 0) return popcount(stones & ~grow(stones & nbrs(empty), stones));
    int lost = 0;
    for (bb rest = stones; rest && lost <= budget;) {
        bb g = grow(rest & (~rest + 1), stones);
        rest &= ~g;
        if (popcount(nbrs(g) & empty) <= moves) lost += popcount(g);
    }
    return lost;
}

/* 1 when the side to move wins whatever the other side plays, 0 when it loses whatever it
 * plays, -1 otherwise. Each side has a strategy that needs no search: passing on every move.
 * Against it the other side plays its moves alone: it adds at most a stone a move (and no
 * more than the empty points and the stones it can capture make room for) and captures only
 * the groups with no more liberties than its moves. When even its best outcome against that
 * loses, the passing side wins. Against the bound it replaced (a group safe with more
 * liberties than plies left, a side adding a stone a move) it took twelve positions at plies
 * 6-8 from 47M nodes to 30M. bound_of takes the moves left to each side (``mine``, ``theirs``)
 * and the margin the mover ``need``s, the same for all the children of a position. */
static inline int need_of(int player) { return player == BLACK ? BLACK_WINS_FROM : WHITE_WINS_FROM; }

static inline __attribute__((always_inline)) int bound_of(const pos_t *s, int mine, int theirs, int need) {
    int own = popcount(s->own), opp = popcount(s->opp);
    bb empty = FULL ^ s->own ^ s->opp;
    int holes = popcount(empty);
    /* the other side's moves alone against a passing mover */
    int margin = own - opp - (theirs < holes ? theirs : holes) - need;
    if (margin >= 0) {
        int lost = lost_stones(s->own, empty, theirs, margin), kept = own - lost;
        int added = theirs < holes + lost ? theirs : holes + lost;
        if (lost <= margin && kept - opp - added >= need) return 1;
    }
    /* the mover's moves alone against a passing other side */
    margin = need - 1 - (own + (mine < holes ? mine : holes) - opp);
    if (margin >= 0) {
        int lost = lost_stones(s->opp, empty, mine, margin), kept = opp - lost;
        int added = mine < holes + lost ? mine : holes + lost;
        if (lost <= margin && own + added - kept < need) return 0;
    }
    return -1;
}

static int static_bound(const pos_t *s) {
    int left = MAX_MOVES - s->ply;
    return bound_of(s, (left + 1) / 2, left / 2, need_of(s->player));
}

/* ---- the search ---- */
static uint64_t nodes;

/* The order in which moves are tried, the one most likely to win first: captures, the largest
 * first; then every other point by its closeness to the centre (each step nearer counts twice,
 * each ring nearer once), ties broken by the enemy groups it takes a liberty from; a move that leaves
 * its own group in atari without capturing after those; the pass last. Against the order it
 * replaced (captures, ataris, killers, the points near the last move, liberties, history) it
 * took the benchmark's 16 positions at plies 4 and 6-8 from 100M nodes to 23M; a bonus for
 * ataris or for saving a group in atari, a killer move, or the enemy groups touched weighing
 * as much as a step to the centre each cost nodes. */
static int CENTRE[N];

/* every point's NEIGHBOURS and CENTRE */
static void init_points(void) {
    int c = BOARD_SIZE / 2;
    for (int p = 0; p < N; p++) {
        NEIGHBOURS[p] = nbrs((bb)1 << p);
        int di = abs(p / BOARD_SIZE - c), dj = abs(p % BOARD_SIZE - c), ring = di > dj ? di : dj;
        CENTRE[p] = 2 * (2 * c - di - dj) + (c - ring);
    }
}

static int move_score(const pos_t *s, int p, const pos_t *child) {
    if (p == PASS) return -(1 << 30);
    bb bit = (bb)1 << p;
    int captured = popcount(s->opp) - popcount(child->own);
    if (captured) return (1 << 20) + 64 * captured + CENTRE[p];
    int touched = 0;
    bb enemies = nbrs(bit) & s->opp;
    while (enemies) {
        enemies &= ~grow(enemies & (~enemies + 1), s->opp);
        touched++;
    }
    int score = 8 * CENTRE[p] + touched;
    bb empty = FULL ^ child->own ^ child->opp;
    if (popcount(nbrs(grow(bit, child->opp)) & empty) <= 1) score -= 1 << 20;
    return score;
}

/* the legal moves and the positions they make, best first (``move_score``) */
static int children_of(const pos_t *s, int *moves, pos_t *children) {
    int n = 0, score[N + 1];
    for (int p = 0; p <= PASS; p++) {
        if (!play(s, p, &children[n])) continue;
        score[n] = move_score(s, p, &children[n]);
        moves[n++] = p;
    }
    for (int i = 1; i < n; i++) {
        int m = moves[i], sc = score[i], j = i - 1;
        pos_t c = children[i];
        while (j >= 0 && score[j] < sc) {
            moves[j + 1] = moves[j]; score[j + 1] = score[j]; children[j + 1] = children[j]; j--;
        }
        moves[j + 1] = m; score[j + 1] = sc; children[j + 1] = c;
    }
    return n;
}

/* Positions from this ply on are not kept in the table: searching one costs less than the cache
 * miss of asking the table about it. */
#define TABLE_PLIES (MAX_MOVES - 1)

/* ``result``, kept for ``s`` (whose key mixed is ``mix``) where the table keeps positions of its ply */
static inline int keep(const pos_t *s, uint64_t mix, int result, uint64_t work) {
    if (s->ply < TABLE_PLIES) store(mix, result, work);
    return result;
}

/* Whether the side to move wins ``s`` (not over, not settled by the static bound; ``images`` its
 * images, ``mix`` its table key mixed by hash64; ``unknown`` when the table was just asked about
 * it in vain and has stored nothing since: the first child searched). Every child is made first: one that ends the game won, that the static bound says
 * is lost for the other side, or that the table holds as lost settles the position at once; one
 * the bound or the table says the other side wins is a losing move and is not searched. A child's
 * bucket is fetched (prefetch) as soon as its key is known and the table is asked about the
 * children in a loop of its own, so that the processor fetches their entries while it makes the
 * other children: the probes' cache misses were a third of the time. The rest are searched best
 * first, and the first that wins settles it. */
static int search(const pos_t *s, const images_t *images, uint64_t mix, int unknown) {
    if (++nodes % 100000000 == 0) fprintf(stderr, "progress %llu nodes\n", (unsigned long long)nodes);
    int r;
    if (!unknown && s->ply < TABLE_PLIES && probe(mix, &r)) return r;
    uint64_t start = nodes;
    pos_t children[N + 1];
    uint64_t mixed[N + 1];
    images_t child[N + 1];
    int moves[N + 1], score[N + 1], order[N + 1], n = 0;
    /* the empty points and the pass, in the order of their numbers */
    bb empty = FULL ^ s->own ^ s->opp, roomy = roomy_points(empty);
    int left = MAX_MOVES - s->ply - 1, mine = (left + 1) / 2, theirs = left / 2, need = need_of(OPPONENT(s->player));
    for (bb todo = empty | ((bb)1 << PASS); todo; todo &= todo - 1) {
        int p = __builtin_ctz(todo);
        pos_t *c = &children[n];
        if (!play_at(s, p, roomy, c)) continue;
        if (c->over) {
            if (!terminal_win(c)) return keep(s, mix, 1, 0);
            continue;
        }
        int bound = bound_of(c, mine, theirs, need);
        if (bound == 0) return keep(s, mix, 1, 0);
        if (bound == 1) continue;
        if (c->ply < SYM_PLIES) child_images(images, s, p, c, &child[n]);
        if (c->ply < TABLE_PLIES) {
            mixed[n] = hash64(key_from(c, &child[n], p == PASS));
            __builtin_prefetch(bucket_of(mixed[n]));
        }
        moves[n++] = p;
    }
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (children[i].ply >= TABLE_PLIES || !probe(mixed[i], &r)) order[open++] = i;
        else if (!r) return keep(s, mix, 1, 0);
    }
    /* one open child needs no order */
    for (int i = 0; i < open && open > 1; i++) score[order[i]] = move_score(s, moves[order[i]], &children[order[i]]);
    for (int i = 1; i < open; i++) {
        int o = order[i], j = i - 1;
        while (j >= 0 && score[order[j]] < score[o]) { order[j + 1] = order[j]; j--; }
        order[j + 1] = o;
    }
    int result = 0;
    for (int i = 0; i < open && !result; i++) result = !search(&children[order[i]], &child[order[i]], mixed[order[i]], i == 0);
    return keep(s, mix, result, nodes - start);
}

/* whether the side to move wins ``s``, with perfect play by both sides */
static int wins(const pos_t *s) {
    if (s->over) return terminal_win(s);
    int bound = static_bound(s);
    if (bound >= 0) return bound;
    images_t images;
    if (s->ply < SYM_PLIES) images_of(s, &images);
    return search(s, &images, hash64(key_from(s, &images, passed(s))), 0);
}

#include "solve_book.h"

/* ---- input ---- */
static int parse_board(const char *text, bb *black, bb *white) {
    if (strlen(text) != N) return 0;
    *black = *white = 0;
    for (int p = 0; p < N; p++) {
        if (text[p] == '1') *black |= (bb)1 << p;
        else if (text[p] == '2') *white |= (bb)1 << p;
        else if (text[p] != '0') return 0;
    }
    return 1;
}
static int parse_position(const char *line, pos_t *s) {
    char prev[64], cur[64];
    int player, ply;
    if (sscanf(line, "%d %d %63s %63s", &player, &ply, prev, cur) != 4) return 0;
    if ((player != BLACK && player != WHITE) || ply < 0 || ply > MAX_MOVES) return 0;
    bb pb, pw, b, w;
    if (!parse_board(prev, &pb, &pw) || !parse_board(cur, &b, &w)) return 0;
    s->player = player; s->ply = ply; s->over = ply >= MAX_MOVES;
    s->own = player == BLACK ? b : w; s->opp = player == BLACK ? w : b;
    s->prev_own = player == BLACK ? pb : pw; s->prev_opp = player == BLACK ? pw : pb;
    return 1;
}

/* a zeroed table, on huge pages where the system allows it: the probes land anywhere in
 * gigabytes, and with 4 KiB pages most of them would miss the TLB. The system clears a page
 * when it is first touched. */
static uint64_t *big_zeroed(size_t words) {
    size_t bytes = words * sizeof(uint64_t);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
#else
    return calloc(words, sizeof(uint64_t));
#endif
}

int main(int argc, char **argv) {
    int log2_buckets = argc > 1 ? atoi(argv[1]) : 0;
    if (log2_buckets < MIN_TABLE_BITS || log2_buckets > MAX_TABLE_BITS) {
        fprintf(stderr, "usage: solve TABLE_BITS (log2 of the table's buckets, %d to %d)\n", MIN_TABLE_BITS, MAX_TABLE_BITS);
        return 2;
    }
    init_tables();
    init_points();
    largest_mask = ((uint64_t)1 << log2_buckets) - 1;
    table_mask = ((uint64_t)1 << MIN_TABLE_BITS) - 1;
    table = big_zeroed((size_t)BUCKET << log2_buckets);
    seen_mask = ((uint64_t)1 << 24) - 1;
    seen = calloc(seen_mask + 1, sizeof(uint64_t));
    if (!table || !seen) { fprintf(stderr, "solve: out of memory\n"); return 2; }
    char line[512], command[16];
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%15s", command) != 1) continue;
        const char *rest = line + strlen(command);
        pos_t s;
        uint64_t before = nodes;
        if (!strcmp(command, "wins") || !strcmp(command, "moves")) {
            if (!parse_position(rest, &s)) { printf("error bad position\n"); fflush(stdout); continue; }
            if (!strcmp(command, "wins")) {
                printf("%d\n", s.over ? terminal_win(&s) : wins(&s));
            } else {
                int first = 1;
                for (int p = 0; p <= PASS; p++) {
                    pos_t c;
                    if (s.over || !play(&s, p, &c)) continue;
                    int w = c.over ? !terminal_win(&c) : !wins(&c);
                    printf(first ? "%d:%d" : " %d:%d", p, w);
                    first = 0;
                }
                printf("\n");
            }
        } else if (!strcmp(command, "book")) {
            int maxply, used = 0;
            if (sscanf(rest, "%d%n", &maxply, &used) != 1) { printf("error bad book line\n"); fflush(stdout); continue; }
            memset(&s, 0, sizeof s);
            s.player = 1;
            if (strspn(rest + used, " \t\r\n") != strlen(rest + used) && !parse_position(rest + used, &s)) {
                printf("error bad position\n"); fflush(stdout); continue;
            }
            seen_count = 0;
            memset(seen, 0, (seen_mask + 1) * sizeof(uint64_t));
            book(&s, maxply);
            printf("end\n");
        } else {
            printf("error unknown command %s\n", command);
        }
        fflush(stdout);
        fprintf(stderr, "stats nodes %llu\n", (unsigned long long)(nodes - before));
    }
    return 0;
}
