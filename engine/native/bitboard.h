/* What the compiled programs share: the board as a bitboard of the game's points (the numbers
 * come from engine/native/compiler.py, as in every source here), the colours' turn, and the
 * neighbour and group operations of engine/bitboard.py. */
#ifndef LITTLEGO_BITBOARD_H
#define LITTLEGO_BITBOARD_H

#include <stdint.h>

#if !defined(BOARD_SIZE) || !defined(N) || !defined(BLACK) || !defined(WHITE)
#error "compile through engine/native/compiler.py, which passes the game's numbers"
#endif

typedef uint32_t bb;
#define FULL ((bb)((1u << N) - 1))
#define ROW ((1u << BOARD_SIZE) - 1)
#define OPPONENT(colour) (BLACK + WHITE - (colour))

/* the points of the first and the last column: FULL / ROW has a 1 at the start of every row */
#define COLUMN_0 ((bb)(FULL / ROW))
#define COLUMN_LAST ((bb)(COLUMN_0 << (BOARD_SIZE - 1)))

/* the points next to those of m */
static inline bb nbrs(bb m) {
    return (((m << 1) & ~COLUMN_0) | ((m >> 1) & ~COLUMN_LAST) | (m << BOARD_SIZE) | (m >> BOARD_SIZE)) & FULL;
}

/* the stones of `stones` connected to `seed` */
static inline bb grow(bb seed, bb stones) {
    bb group = seed;
    for (;;) {
        bb grown = (group | nbrs(group)) & stones;
        if (grown == group) return group;
        group = grown;
    }
}

#endif
