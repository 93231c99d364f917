/* Part of solve.c (included once, there): the opening book's walk and its output. */

/* ---- the opening book: a winning move in every position a perfect side can meet ---- */
static uint64_t *seen;
static uint64_t seen_mask, seen_count;

static int seen_add(uint64_t key) {
    if (seen_count >= seen_mask / 2) { fprintf(stderr, "solve: the book's position set is full\n"); exit(3); }
    uint64_t h = hash64(key) & seen_mask;
    while (seen[h]) {
        if (seen[h] == (key | VALID)) return 0;
        h = (h + 1) & seen_mask;
    }
    seen[h] = key | VALID;
    seen_count++;
    return 1;
}

static void print_board(bb black, bb white) {
    char out[N + 1];
    for (int p = 0; p < N; p++) out[p] = (black >> p & 1) ? '1' : (white >> p & 1) ? '2' : '0';
    out[N] = 0;
    fputs(out, stdout);
}
static void print_position(const pos_t *s) {
    bb black = s->player == BLACK ? s->own : s->opp, white = s->player == BLACK ? s->opp : s->own;
    bb pblack = s->player == BLACK ? s->prev_own : s->prev_opp, pwhite = s->player == BLACK ? s->prev_opp : s->prev_own;
    printf("%d %d ", s->player, s->ply);
    print_board(pblack, pwhite);
    putchar(' ');
    print_board(black, white);
}

static uint64_t book_lines;

static void book(const pos_t *s, int maxply) {
    if (s->over || s->ply > maxply) return;
    if (!seen_add(key_of(s))) return;
    int moves[N + 1];
    pos_t children[N + 1], child;
    int n = children_of(s, moves, children), chosen = -1;
    for (int i = 0; i < n; i++) {
        int won = children[i].over ? !terminal_win(&children[i]) : !wins(&children[i]);
        if (won) { chosen = moves[i]; child = children[i]; break; }
    }
    if (chosen < 0) return;   /* a lost position: nothing to keep */
    print_position(s);
    printf(" %d\n", chosen);
    book_lines++;
    if (child.over) return;
    pos_t next;
    for (int p = 0; p <= PASS; p++)
        if (play(&child, p, &next)) book(&next, maxply);
}
