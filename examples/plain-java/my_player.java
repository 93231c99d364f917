// A plain Little-Go course agent whose evaluation constants are written in its code.
//
// The Java example for tuning "an agent as it is": its constants are found and replaced in a
// copy of this file, with no weights file to read (docs/tune-your-agent.md). Built and run as
// the course does, `javac my_player.java` and `java my_player`. It reads input.txt (the colour
// to move, 1 Black or 2 White, then the previous and the current board, five lines of five
// digits each) and writes "i,j" or "PASS" to output.txt; it keeps no state between moves.
//
// Search: negamax with alpha-beta to DEPTH plies, a pass included as a move, ties broken by
// point order (the pass last), so a move depends on the boards alone. The plies played are
// guessed from the stones; a leaf at the 24th ply, or after two passes, is scored by the count.
//
// Evaluation, for the side to move: its stones less the opponent's, with komi, plus
//   ATARI_WEIGHT   (static final double) x the opponent's stones in atari
//   DANGER_WEIGHT  (static final double) x its own stones in atari, subtracted
//   LIBERTY_WEIGHT (static final double) x its groups' liberties less the opponent's
//   edgeWeight     (a field's initialiser) x its stones on the edge less the opponent's
//   centreWeight   (a field's initialiser) x its stones on the inner 3x3 less the opponent's
// The defaults are deliberately mediocre (an atari weight of the wrong sign, an edge weight
// that likes the edge) so that tuning has room to improve the agent. SIZE, KOMI, MAX_MOVES
// are the rules.
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Arrays;

public class my_player {
    static final double ATARI_WEIGHT = -0.5;
    static final double DANGER_WEIGHT = 1.0;
    static final double LIBERTY_WEIGHT = 0.15;
    static final int DEPTH = 3;

    static final int SIZE = 5;
    static final int POINTS = SIZE * SIZE;
    static final int MAX_MOVES = 24;
    static final double KOMI = 2.5;
    static final int PASS = -1;

    double edgeWeight = 0.5;
    double centreWeight = 0.2;

    final int[][] neighbours = new int[POINTS][];

    my_player() {
        for (int p = 0; p < POINTS; p++) {
            int i = p / SIZE, j = p % SIZE, n = 0;
            int[] found = new int[4];
            if (i > 0) found[n++] = p - SIZE;
            if (i < SIZE - 1) found[n++] = p + SIZE;
            if (j > 0) found[n++] = p - 1;
            if (j < SIZE - 1) found[n++] = p + 1;
            neighbours[p] = Arrays.copyOf(found, n);
        }
    }

    // The group at p: its stones into stones[] (returns how many) and its liberty count into libs[0].
    int group(int[] b, int p, int[] stones, int[] libs) {
        boolean[] inGroup = new boolean[POINTS], isLiberty = new boolean[POINTS];
        int count = 0, liberties = 0, colour = b[p];
        stones[count++] = p;
        inGroup[p] = true;
        for (int k = 0; k < count; k++) {
            for (int r : neighbours[stones[k]]) {
                if (b[r] == 0 && !isLiberty[r]) {
                    isLiberty[r] = true;
                    liberties++;
                } else if (b[r] == colour && !inGroup[r]) {
                    inGroup[r] = true;
                    stones[count++] = r;
                }
            }
        }
        libs[0] = liberties;
        return count;
    }

    // The board after colour plays p, captures removed; null for a suicide.
    int[] play(int[] b, int p, int colour) {
        int[] out = b.clone(), stones = new int[POINTS], libs = new int[1];
        out[p] = colour;
        for (int r : neighbours[p]) {
            if (out[r] == 3 - colour) {
                int count = group(out, r, stones, libs);
                if (libs[0] == 0) for (int k = 0; k < count; k++) out[stones[k]] = 0;
            }
        }
        group(out, p, stones, libs);
        return libs[0] > 0 ? out : null;
    }

    static int stoneCount(int[] b, int colour) {
        int n = 0;
        for (int c : b) if (c == colour) n++;
        return n;
    }

    static double stoneScore(int[] b, int colour) {
        return stoneCount(b, colour) - stoneCount(b, 3 - colour) + (colour == 2 ? KOMI : -KOMI);
    }

    static double finalScore(int[] b, int colour) {
        return 100.0 * stoneScore(b, colour);
    }

    double evaluate(int[] b, int colour) {
        double value = stoneScore(b, colour);
        boolean[] seen = new boolean[POINTS];
        int[] stones = new int[POINTS], libs = new int[1];
        for (int p = 0; p < POINTS; p++) {
            int owner = b[p], i = p / SIZE, j = p % SIZE;
            if (owner == 0) continue;
            double sign = owner == colour ? 1.0 : -1.0;
            boolean edge = i == 0 || j == 0 || i == SIZE - 1 || j == SIZE - 1;
            value += sign * (edge ? edgeWeight : centreWeight);
            if (!seen[p]) {
                int count = group(b, p, stones, libs);
                for (int k = 0; k < count; k++) seen[stones[k]] = true;
                value += sign * LIBERTY_WEIGHT * libs[0];
                if (libs[0] == 1) value += owner == colour ? -DANGER_WEIGHT * count : ATARI_WEIGHT * count;
            }
        }
        return value;
    }

    // The value for colour, to move on b (its KO board prev), searched depth plies deep.
    double negamax(int[] b, int[] prev, boolean passed, int depth, int left, int colour, double alpha, double beta) {
        if (left <= 0) return finalScore(b, colour);
        if (depth == 0) return evaluate(b, colour);
        double best = Double.NEGATIVE_INFINITY;
        for (int p = 0; p < POINTS; p++) {
            if (b[p] != 0) continue;
            int[] after = play(b, p, colour);
            if (after == null || Arrays.equals(after, prev)) continue;
            double value = -negamax(after, b, false, depth - 1, left - 1, 3 - colour, -beta, -alpha);
            if (value > best) best = value;
            if (value > alpha) alpha = value;
            if (alpha >= beta) return best;
        }
        double value = passed ? finalScore(b, colour) : -negamax(b, b, true, depth - 1, left - 1, 3 - colour, -beta, -alpha);
        return Math.max(value, best);
    }

    int chooseMove(int colour, int[] prev, int[] cur) {
        int played = POINTS - stoneCount(cur, 0); // a guess: captures and passes make it low
        if (played % 2 != (colour == 1 ? 0 : 1)) played++;
        int left = Math.max(1, MAX_MOVES - played);
        int depth = Math.min(DEPTH, left);
        double alpha = Double.NEGATIVE_INFINITY, beta = Double.POSITIVE_INFINITY, best = Double.NEGATIVE_INFINITY;
        int bestPoint = PASS;
        for (int p = 0; p < POINTS; p++) {
            if (cur[p] != 0) continue;
            int[] after = play(cur, p, colour);
            if (after == null || Arrays.equals(after, prev)) continue;
            double value = -negamax(after, cur, false, depth - 1, left - 1, 3 - colour, -beta, -alpha);
            if (value > best) {
                best = value;
                bestPoint = p;
                alpha = Math.max(alpha, value);
            }
        }
        // The opponent passed (or the game starts): a pass ends the game.
        double value = Arrays.equals(prev, cur) ? finalScore(cur, colour)
                : -negamax(cur, cur, true, depth - 1, left - 1, 3 - colour, -beta, -alpha);
        return value > best ? PASS : bestPoint;
    }

    public static void main(String[] args) throws IOException {
        int colour;
        int[][] boards = new int[2][POINTS];
        try (BufferedReader in = new BufferedReader(new FileReader("input.txt"))) {
            colour = Integer.parseInt(in.readLine().trim());
            for (int k = 0; k < 2; k++) {
                for (int i = 0; i < SIZE; i++) {
                    String line = in.readLine().trim();
                    for (int j = 0; j < SIZE; j++) boards[k][i * SIZE + j] = line.charAt(j) - '0';
                }
            }
        }
        int p = new my_player().chooseMove(colour, boards[0], boards[1]);
        try (PrintWriter out = new PrintWriter("output.txt")) {
            out.print(p == PASS ? "PASS" : (p / SIZE) + "," + (p % SIZE));
        }
    }
}
