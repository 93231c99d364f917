/* littlego offline solver: exact win/loss of Little-Go positions under the course's rules.
 *
 * A compiled companion of engine/solver.py for work that pure Python cannot finish in
 * time: solving the opening and building the opening book. The rules are those of
 * engine/position.py (tests compare the two on thousands of positions). Boolean
 * negamax: a position is won when some move leads to a lost position for the other
 * side; the transposition table stores exact results, keyed by the board under the 8
 * symmetries, ply, colour to move, the KO point and whether the last move was a pass.
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

/* the position after a placement at p, or 0 when the judge rejects it */
static int play(const pos_t *s, int p, pos_t *out) {
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
    if (nbrs(bit) & opp) dead = opp ^ grow(opp & nbrs(empty), opp);
    if (!(nbrs(bit) & empty)) {
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

static int popcount(bb x) { return __builtin_popcount(x); }

/* the finished game won by the side to move (komi to White) */
static int terminal_win(const pos_t *s) {
    int d = popcount(s->own) - popcount(s->opp);
    return s->player == BLACK ? d >= BLACK_WINS_FROM : d >= WHITE_WINS_FROM;
}

#include "solve_keys.h"

/* ---- transposition table: 4-way buckets, exact results ---- */
#define VALID ((uint64_t)1 << 63)
#define RESULT ((uint64_t)1 << 62)
#define KEYMASK (RESULT - 1)
static uint64_t *table;
static uint64_t table_mask;   /* bucket count - 1 */

static inline uint64_t hash64(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return k;
}
static int probe(uint64_t key, int *result) {
    uint64_t *b = table + 4 * (hash64(key) & table_mask);
    for (int i = 0; i < 4; i++)
        if ((b[i] & VALID) && (b[i] & KEYMASK) == key) { *result = (b[i] & RESULT) != 0; return 1; }
    return 0;
}
static void store(uint64_t key, int result) {
    uint64_t *b = table + 4 * (hash64(key) & table_mask);
    int victim = 0, worst = -1;
    for (int i = 0; i < 4; i++) {
        if (!(b[i] & VALID)) { victim = i; break; }
        int p = (int)((b[i] >> 56) & 31);
        if (p > worst) { worst = p; victim = i; }
    }
    b[victim] = VALID | key | (result ? RESULT : 0);
}

/* ---- the search ---- */
static uint64_t nodes;
static int history[MAX_MOVES + 1][N + 1];

/* The legal moves and the positions they make, in the order most likely to win at once:
 * a pass first when the opponent just passed (it ends the game), then by a score: captures
 * by size, a move putting stones in atari, the two killer moves of this ply (the last that
 * won here), the points near the opponent's last stone (replies are mostly local), the
 * liberties of the new stone's group (a group left in atari last), the line from the edge;
 * ties broken by the history of winning moves. Measured on a ply-6 position: the killers
 * and locality took the search from 33M nodes to 19M. */
#define KILLER_BONUS 1024
#define LOCAL_BONUS 256
#define LINE_BONUS 64
static int killer[MAX_MOVES + 1][2];
static const int LINE[N] = {0,0,0,0,0, 0,1,1,1,0, 0,1,2,1,0, 0,1,1,1,0, 0,0,0,0,0};

static int children_of(const pos_t *s, int *moves, pos_t *children) {
    int n = 0, score[N + 1];
    bb last = s->opp & ~s->prev_opp;
    bb near_last = nbrs(last | nbrs(last));
    for (int p = 0; p <= PASS; p++) {
        if (!play(s, p, &children[n])) continue;
        int sc;
        if (p == PASS) {
            sc = passed(s) ? 1 << 30 : -(1 << 30);
        } else {
            const pos_t *c = &children[n];
            bb bit = (bb)1 << p, empty = FULL ^ c->own ^ c->opp;
            int captured = popcount(s->opp) - popcount(c->own);
            int libs = popcount(nbrs(grow(bit, c->opp)) & empty);
            int atari = 0;
            if (!captured && (nbrs(bit) & c->own)) {
                bb touched = grow(nbrs(bit) & c->own, c->own);
                atari = popcount(nbrs(touched) & empty) == 1;
            }
            sc = 4096 * captured + 512 * atari + 64 * (libs > 3 ? 3 : libs) - (libs <= 1 ? 2048 : 0);
            if (bit & near_last) sc += LOCAL_BONUS;
            sc += LINE_BONUS * LINE[p];
            if (p == killer[s->ply][0]) sc += KILLER_BONUS;
            else if (p == killer[s->ply][1]) sc += KILLER_BONUS / 2;
            int h = history[s->ply][p] >> 8;
            sc = sc * 64 + (h > 63 ? 63 : h);
        }
        score[n] = sc;
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

/* ---- bounds that need no search ---- */

/* The stones of ``stones`` in groups with more liberties than plies left: a move takes at
 * most one liberty from a group (a capture only gives some back), so nothing captures them. */
static bb safe_stones(bb stones, bb empty, int left) {
    bb safe = 0, rest = stones;
    while (rest) {
        bb g = grow(rest & (~rest + 1), stones);
        rest &= ~g;
        if (popcount(nbrs(g) & empty) > left) safe |= g;
    }
    return safe;
}

/* 1 when the side to move wins whatever both sides play, 0 when it cannot win whatever
 * they play, -1 otherwise. At the end the mover has at most its stones now plus one per
 * move left, the opponent at least its safe stones (and the other way round). Measured on
 * four ply-6 positions from games against GNU Go: it took the search from 108M nodes /
 * 45.8 s to 34M / 12.4 s
 * (with enhanced transposition cut-offs down to ply 20). */
static int static_bound(const pos_t *s) {
    int left = MAX_MOVES - s->ply, mine = (left + 1) / 2, theirs = left / 2;
    int need = s->player == BLACK ? BLACK_WINS_FROM : WHITE_WINS_FROM;
    int own = popcount(s->own), opp = popcount(s->opp);
    bb empty = FULL ^ s->own ^ s->opp;
    if (own - opp - theirs >= need && popcount(safe_stones(s->own, empty, left)) - opp - theirs >= need) return 1;
    if (own + mine - opp < need && own + mine - popcount(safe_stones(s->opp, empty, left)) < need) return 0;
    return -1;
}

static int wins(const pos_t *s) {
    if (++nodes % 100000000 == 0) fprintf(stderr, "progress %llu nodes\n", (unsigned long long)nodes);
    if (s->over) return terminal_win(s);
    int bound = static_bound(s);
    if (bound >= 0) return bound;
    uint64_t key = key_of(s, NULL);
    int r;
    if (probe(key, &r)) return r;
    int moves[N + 1];
    pos_t children[N + 1];
    int n = children_of(s, moves, children);
    /* a finished game won, or (near the root) a child already known lost, settles this node at once */
    for (int i = 0; i < n; i++) {
        int cr;
        if (children[i].over ? !terminal_win(&children[i])
            : (s->ply < ETC_PLIES && probe(key_of(&children[i], NULL), &cr) && !cr)) {
            store(key, 1); history[s->ply][moves[i]] += 4; return 1;
        }
    }
    int result = 0;
    for (int i = 0; i < n; i++) {
        if (children[i].over) continue;
        if (!wins(&children[i])) {
            result = 1;
            history[s->ply][moves[i]] += (MAX_MOVES - s->ply) * (MAX_MOVES - s->ply);
            if (killer[s->ply][0] != moves[i]) { killer[s->ply][1] = killer[s->ply][0]; killer[s->ply][0] = moves[i]; }
            break;
        }
    }
    store(key, result);
    return result;
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
 * gigabytes, and with 4 KiB pages most of them would miss the TLB */
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
    table_mask = ((uint64_t)1 << log2_buckets) - 1;
    table = big_zeroed((size_t)4 << log2_buckets);
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
