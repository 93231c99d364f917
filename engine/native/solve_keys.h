/* Part of solve.c (included once, there): the 8 symmetries and the table's keys. */

/* ---- symmetries and keys ----
 * A position's images carry both boards under each of the 8 symmetries, the mover's in the low
 * half of a word and the other side's above HALF; the key is the least of them. A child's images
 * are its parent's with the halves exchanged, the new stone added and the captured stones taken
 * away: 8 words of 64 bits a stone, where turning both boards anew cost 80 table lookups (a
 * key was a quarter of the solver's instructions). */
static const int SYMPOINT[8][N] = SYMMETRY_POINTS;
#define HALF 32
static uint64_t POINT_IMAGE[N][8];   /* POINT_IMAGE[p][t]: the bit of point p turned by t */

typedef struct {
    uint64_t image[8];
} images_t;

static void init_tables(void) {
    for (int p = 0; p < N; p++)
        for (int t = 0; t < 8; t++) POINT_IMAGE[p][t] = (uint64_t)1 << SYMPOINT[t][p];
}

/* the images of the boards of ``s`` */
static void images_of(const pos_t *s, images_t *out) {
    for (int t = 0; t < 8; t++) out->image[t] = 0;
    for (int p = 0; p < N; p++)
        for (int t = 0; t < 8; t++) {
            if (s->own >> p & 1) out->image[t] |= POINT_IMAGE[p][t];
            if (s->opp >> p & 1) out->image[t] |= POINT_IMAGE[p][t] << HALF;
        }
}

/* the images of ``child``, made from ``s`` (whose images are ``parent``) by a placement at p or a pass */
static inline void child_images(const images_t *parent, const pos_t *s, int p, const pos_t *child, images_t *out) {
    for (int t = 0; t < 8; t++) {
        uint64_t x = parent->image[t];
        out->image[t] = (x >> HALF) | (x << HALF);
    }
    if (p == PASS) return;
    for (int t = 0; t < 8; t++) out->image[t] |= POINT_IMAGE[p][t] << HALF;
    for (bb dead = s->opp & ~child->own; dead; dead &= dead - 1)
        for (int t = 0; t < 8; t++) out->image[t] ^= POINT_IMAGE[__builtin_ctz(dead)][t];
}

/* the point the KO rule forbids when the mover's one stone ``lost`` was just captured, or -1 */
static __attribute__((noinline)) int ko_point_after(const pos_t *s, bb lost) {
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

/* the point the KO rule forbids (the mover's one stone just captured), or -1 */
static inline int ko_point(const pos_t *s) {
    bb lost = s->prev_own & ~s->own;
    return !lost || (lost & (lost - 1)) ? -1 : ko_point_after(s, lost);
}

static inline int passed(const pos_t *s) { return s->own == s->prev_own && s->opp == s->prev_opp; }

/* Positions before this ply are keyed under the 8 symmetries: a key costs 8 images of the board,
 * and later positions are seldom met turned. Up to ply 20 (rather than 12) it proved 2,2 from the
 * empty board in 31M nodes instead of 44M. */
#define SYM_PLIES 20

/* both boards in 50 bits (the other side's above the mover's) and the KO point + 1 in 5 above them */
static inline uint64_t packed(uint64_t image, int ko) {
    return (image & FULL) | ((image >> HALF) << N) | ((uint64_t)(ko + 1) << 50);
}

/* The table's key of ``s`` (its boards, KO point, pass, ply and colour), from its images
 * (``images``; unused from SYM_PLIES on) and whether the last move was a pass (``pass``, which
 * the search knows without comparing boards): before SYM_PLIES the least key of its 8 images. */
static inline uint64_t key_from(const pos_t *s, const images_t *images, int pass) {
    int ko = ko_point(s);
    uint64_t tail = ((uint64_t)pass << 55) | ((uint64_t)s->ply << 56) | ((uint64_t)(s->player - 1) << 61);
    if (s->ply >= SYM_PLIES) return packed(s->own | ((uint64_t)s->opp << HALF), ko) | tail;
    uint64_t best = ~(uint64_t)0;
    if (ko < 0) {
        /* a word orders the images as their keys do: the other side's board first */
        for (int t = 0; t < 8; t++) best = images->image[t] < best ? images->image[t] : best;
        return packed(best, -1) | tail;
    }
    for (int t = 0; t < 8; t++) {
        uint64_t k = packed(images->image[t], SYMPOINT[t][ko]);
        best = k < best ? k : best;
    }
    return best | tail;
}

static uint64_t key_of(const pos_t *s) {
    images_t images;
    if (s->ply < SYM_PLIES) images_of(s, &images);
    return key_from(s, &images, passed(s));
}
