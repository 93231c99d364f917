/* Part of search.c (included once, there): the transposition table under table_key's exact keys. */

/* ---- the transposition table: table_key's exact keys, open addressing ---- */

static void table_key(const pos_t *p, uint64_t *a, uint64_t *b) {
    uint64_t kind = 0;
    *b = 0;
    if (p->prev_own & ~p->own) {
        kind = 2;
        *b = (uint64_t)p->prev_own | ((uint64_t)p->prev_opp << N);
    } else if (passed(p)) {
        kind = 1;
    }
    *a = PRESENT | (uint64_t)p->own | ((uint64_t)p->opp << N) | ((uint64_t)COLOUR(p->player) << (2 * N))
       | (kind << (2 * N + 1)) | ((uint64_t)p->moves_played << (2 * N + 3));
}

static inline uint64_t slot_of(uint64_t a, uint64_t b) {
    uint64_t k = a ^ (b * 0x9e3779b97f4a7c15ULL);
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return k;
}

static entry_t *find(const searcher_t *s, uint64_t a, uint64_t b) {
    for (uint64_t i = slot_of(a, b) & s->slot_mask;; i = (i + 1) & s->slot_mask) {
        entry_t *e = &s->slots[i];
        if (e->key_a == 0 || (e->key_a == a && e->key_b == b)) return e;
    }
}

/* a fresh, empty table of `slots` slots; 0 (the table as it was) when out of memory */
static int table_reset(searcher_t *s, uint64_t slots) {
    entry_t *fresh = calloc(slots, sizeof(entry_t));
    if (!fresh) return 0;
    free(s->slots);
    s->slots = fresh;
    s->slot_mask = slots - 1;
    s->entries = 0;
    return 1;
}

/* the table in twice the slots, every entry kept; 0 when out of memory */
static int table_grow(searcher_t *s) {
    entry_t *old = s->slots, *fresh = calloc(2 * (s->slot_mask + 1), sizeof(entry_t));
    uint64_t old_slots = s->slot_mask + 1;
    if (!fresh) return 0;
    s->slots = fresh;
    s->slot_mask = 2 * old_slots - 1;
    for (uint64_t i = 0; i < old_slots; i++)
        if (old[i].key_a) *find(s, old[i].key_a, old[i].key_b) = old[i];
    free(old);
    return 1;
}

/* table[key] = (depth, flag, value, move), the table doubled at three quarters full; a search
 * that runs out of memory stops as a limit stops it (OUT_OF_MEMORY) */
static void store(searcher_t *s, uint64_t a, uint64_t b, int depth, int flag, double value, int move) {
    entry_t *e = find(s, a, b);
    if (e->key_a == 0) {
        if (4 * (s->entries + 1) > 3 * (s->slot_mask + 1)) {
            if (!table_grow(s)) {
                s->aborted = OUT_OF_MEMORY;
                return;
            }
            e = find(s, a, b);
        }
        s->entries++;
    }
    *e = (entry_t){a, b, value, depth, (int8_t)flag, (int8_t)move};
}
