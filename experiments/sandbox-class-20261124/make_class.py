"""A course class of thirty entrants, honest and hostile, for the sandbox's done-when check.

    python3 experiments/sandbox-class-20261124/make_class.py OUTDIR [--sample N]

Makes OUTDIR (which must not exist) with one folder per entrant, and beside it
OUTDIR/../grader-secret.txt holding SECRET_TOKEN: a file of the grader's that no entrant may read.
Run the commands with GRADER_TOKEN=SECRET_TOKEN in the environment; the token must appear nowhere
in their output. ``--sample N`` makes N entrants spread over the list (a quick trial).

Every agent speaks the course protocol: input.txt holds its colour (1 or 2), the previous board and
the current board (5 lines of 5 digits each); it writes output.txt with "i,j" or "PASS". Honest agents
play simply (first empty point, last, a seeded random one, or PASS): an illegal move costs them a game,
which is fine here. Each hostile entrant makes one attack, described beside it in ``entrants``. Standard library only.
"""

import argparse
import os
import sys

SECRET_TOKEN = "SECRET-TOKEN-XYZ"
SECRET_FILE = "grader-secret.txt"
FORK_BOUND = 300  # forks the fork bomb tries at most
MEMFD_MIB, MEMFD_PIECE_MIB = 1536, 48  # memfd memory it tries to hold, in files small enough for RLIMIT_FSIZE
BURNERS, BURN_SECONDS = 3, 3  # children left burning CPU, never reaped
SPARSE_MIB = 200
BURNER_MARKER = "class-burner-marker"  # in the burners' argv, so that `ps` finds any left running

# --- Python agents: one reader, one writer, a strategy each ------------------------------------------------
PYTHON_COMMON = '''"""A tiny course agent ({what})."""
import random
import zlib

SIZE = 5


def read_input():
    """(colour, previous board, current board) from input.txt, boards as 5 strings of digits."""
    with open("input.txt") as handle:
        lines = handle.read().split()
    return int(lines[0]), lines[1:1 + SIZE], lines[1 + SIZE:1 + 2 * SIZE]


def empty_points(board):
    return [(i, j) for i in range(SIZE) for j in range(SIZE) if board[i][j] == "0"]


def write_move(move):
    with open("output.txt", "w") as handle:
        handle.write("PASS" if move is None else "{{}},{{}}".format(*move))
'''

PYTHON_STRATEGIES = {
    "first": (
        "the first empty point",
        """
def choose(colour, previous, board):
    points = empty_points(board)
    return points[0] if points else None
""",
    ),
    "last": (
        "the last empty point",
        """
def choose(colour, previous, board):
    points = empty_points(board)
    return points[-1] if points else None
""",
    ),
    "random": (
        "a random empty point, seeded by the position",
        """
SEED = {seed}


def choose(colour, previous, board):
    points = empty_points(board)
    generator = random.Random(SEED * 1000003 + zlib.crc32("".join(board).encode()))
    return generator.choice(points) if points else None
""",
    ),
    "pass": (
        "always PASS",
        """
def choose(colour, previous, board):
    return None
""",
    ),
}

PYTHON_MAIN = """

if __name__ == "__main__":
    write_move(choose(*read_input()))
"""


def python_agent(strategy, seed=0):
    what, body = PYTHON_STRATEGIES[strategy]
    return PYTHON_COMMON.format(what=what) + body.format(seed=seed) + PYTHON_MAIN


# --- Hostile Python agents: a normal move after (or instead of) an attack ----------------------------------
def hostile_python(what, attack, then_move=True):
    """An agent that runs ``attack`` (code at module level, may use SECRET_PATH) and then plays the first
    empty point (unless ``then_move`` is False: the attack writes output.txt itself)."""
    tail = '\n\nif __name__ == "__main__":\n    attack()\n' + (
        "    write_move(choose(*read_input()))\n" if then_move else ""
    )
    return PYTHON_COMMON.format(what=what) + PYTHON_STRATEGIES["first"][1] + "\n\n" + attack.strip("\n") + tail


OUTPUT_SYMLINK = '''
def attack():
    """output.txt made a symbolic link to the grader's secret: a host that follows it shows the token."""
    import os
    os.symlink({secret!r}, "output.txt")
'''

OUTPUT_FIFO = '''
def attack():
    """output.txt made a FIFO with no writer: a host that opens it blocks forever."""
    import os
    os.mkfifo("output.txt")
'''

ENVIRONMENT_SPY = '''
def attack():
    """The environment printed (to stderr, which a fault may show) and searched for the grader's token;
    found, the agent answers 9,9 (off the board), so that the fault tells."""
    import os
    import sys
    for name, value in sorted(os.environ.items()):
        print("{{}}={{}}".format(name, value), file=sys.stderr)
    if "GRADER_TOKEN" in os.environ or any({token!r} in value for value in os.environ.values()):
        write_move((9, 9))
        raise SystemExit(0)
'''

FORK_BOMB = '''
def attack():
    """Up to {bound} children, each sleeping 5 s; no fork failure is caught (it crashes the move)."""
    import os
    import time
    for _ in range({bound}):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
'''

MEMFD_HOG = '''
def attack():
    """{total} MiB held in memfd files of {piece} MiB each (each under a file-size limit): memory that is
    in no process's data segment, so only a memory cgroup counts it."""
    import os
    piece = b"x" * ({piece} * 2 ** 20)
    held = []
    for index in range({total} // {piece}):
        handle = os.memfd_create("hog-{{}}".format(index))
        os.write(handle, piece)
        held.append(handle)
'''

CPU_BURNERS = '''
def attack():
    """{burners} children that burn {seconds} s of CPU each, started and never waited for: the move ends
    before they do."""
    import subprocess
    import sys
    burn = "import time\\nend = time.time() + {seconds}\\nwhile time.time() < end:\\n    pass\\n"
    for _ in range({burners}):
        subprocess.Popen([sys.executable, "-c", burn, {marker!r}])
'''

# --- C++ and Java agents -----------------------------------------------------------------------------------
CPP_READ = r"""#include <fstream>
#include <string>

// A tiny course agent (%s).
static const int SIZE = 5;

static bool read_input(int &colour, std::string board[SIZE]) {
    std::ifstream in("input.txt");
    std::string line;
    if (!(in >> colour)) return false;
    for (int row = 0; row < SIZE; ++row) in >> line;          // the previous board
    for (int row = 0; row < SIZE; ++row) in >> board[row];
    return true;
}

static void write_move(int i, int j) {
    std::ofstream out("output.txt");
    if (i < 0) out << "PASS"; else out << i << "," << j;
}
"""

CPP_ORDERS = {
    "first": ("the first empty point", "for (int k = 0; k < SIZE * SIZE; ++k)"),
    "last": ("the last empty point", "for (int k = SIZE * SIZE - 1; k >= 0; --k)"),
    "column": (
        "the first empty point by columns",
        "for (int c = 0; c < SIZE * SIZE; ++c) for (int k = (c % SIZE) * SIZE + c / SIZE; k >= 0; k = -1)",
    ),
}

CPP_MAIN = r"""
int main() {
    int colour;
    std::string board[SIZE];
    if (!read_input(colour, board)) return 1;
    %s {
        if (board[k / SIZE][k %% SIZE] == '0') { write_move(k / SIZE, k %% SIZE); return 0; }
    }
    write_move(-1, -1);
    return 0;
}
"""


def cpp_agent(order):
    what, loop = CPP_ORDERS[order]
    return CPP_READ % what + CPP_MAIN % loop


CPP_TWO_FILES_MAIN = (
    CPP_READ % "the empty point nearest the centre, chosen in pick.cpp"
    + r"""
int pick(const std::string board[SIZE]);     // pick.cpp

int main() {
    int colour;
    std::string board[SIZE];
    if (!read_input(colour, board)) return 1;
    int k = pick(board);
    write_move(k < 0 ? -1 : k / SIZE, k < 0 ? -1 : k % SIZE);
    return 0;
}
"""
)

CPP_TWO_FILES_PICK = r"""#include <cstdlib>
#include <string>

// The empty point nearest the centre (row-major index), or -1.
int pick(const std::string board[5]) {
    int best = -1, best_distance = 100;
    for (int k = 0; k < 25; ++k) {
        int distance = std::abs(k / 5 - 2) + std::abs(k % 5 - 2);
        if (board[k / 5][k % 5] == '0' && distance < best_distance) { best = k; best_distance = distance; }
    }
    return best;
}
"""

CPP11_AGENT = r"""#include <array>
#include <fstream>
#include <random>
#include <string>
#include <vector>

// A tiny C++11 course agent (%s).
int main() {
    std::ifstream in("input.txt");
    int colour = 0;
    std::array<std::string, 5> previous, board;
    in >> colour;
    for (auto &row : previous) in >> row;
    for (auto &row : board) in >> row;
    std::vector<std::pair<int, int>> empty;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            if (board[i][j] == '0') empty.emplace_back(i, j);
    std::ofstream out("output.txt");
    if (empty.empty()) { out << "PASS"; return 0; }
    %s
    out << move.first << "," << move.second;
    return 0;
}
"""

CPP11_CHOICES = {
    "random": (
        "a random empty point, seeded by the position",
        (
            "std::string rows;\n"
            "    for (const auto &row : board) rows += row;\n"
            "    std::seed_seq seed(rows.begin(), rows.end());\n"
            "    std::mt19937 generator(seed);\n"
            "    auto move = empty[generator() % empty.size()];"
        ),
    ),
    "middle": ("the middle one of the empty points", "auto move = empty[empty.size() / 2];"),
}

JAVA_AGENT = r"""import java.io.*;
import java.nio.file.*;
import java.util.*;

// A tiny course agent (%s).
public class my_player {
    public static void main(String[] args) throws IOException {
        List<String> words = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get("input.txt")))
            if (!line.trim().isEmpty()) words.add(line.trim());
        String[] board = words.subList(6, 11).toArray(new String[0]);
        List<int[]> empty = new ArrayList<>();
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                if (board[i].charAt(j) == '0') empty.add(new int[] {i, j});
        String answer = "PASS";
        if (!empty.isEmpty()) {
            %s
            answer = move[0] + "," + move[1];
        }
        Files.write(Paths.get("output.txt"), answer.getBytes("UTF-8"));
    }
}
"""

JAVA_CHOICES = {
    "first": ("the first empty point", "int[] move = empty.get(0);"),
    "last": ("the last empty point", "int[] move = empty.get(empty.size() - 1);"),
    "random": (
        "a random empty point, seeded by the position",
        'int[] move = empty.get(new Random(String.join("", board).hashCode()).nextInt(empty.size()));',
    ),
}

# The name a hostile folder would need to run its own command if a folder's name were ever read as a player
# spec (cmd:DIR::COMMAND): DIR is an honest entrant beside it, COMMAND marks the fault and writes a file.
# No '/' can be in a name: the path is built from os.sep.
SPEC_NAME_COMMAND = (
    "python3 -c \"import os,sys; open(os.sep.join(['', 'tmp', 'PWNED-colon']), 'w'); "
    "sys.exit('PWNED-colon: the folder name ran as a command')\""
)


def entrants(secret_path):
    """[(folder name, {file: text or an action}, what it is)] of the class, honest ones first."""
    honest = [
        ("py-first-1", {"my_player3.py": python_agent("first")}, "Python 3, first empty point"),
        ("py-first-2", {"my_player3.py": python_agent("first")}, "Python 3, first empty point"),
        ("py-last", {"my_player3.py": python_agent("last")}, "Python 3, last empty point"),
        ("py-random-7", {"my_player3.py": python_agent("random", 7)}, "Python 3, seeded random"),
        ("py-random-8", {"my_player3.py": python_agent("random", 8)}, "Python 3, seeded random"),
        ("py2name-random-9", {"my_player.py": python_agent("random", 9)}, "Python (my_player.py), seeded random"),
        ("py-pass-1", {"my_player3.py": python_agent("pass")}, "Python 3, always PASS"),
        ("py-pass-2", {"my_player3.py": python_agent("pass")}, "Python 3, always PASS"),
        ("cpp-first", {"my_player.cpp": cpp_agent("first")}, "C++, first empty point"),
        ("cpp-last", {"my_player.cpp": cpp_agent("last")}, "C++, last empty point"),
        ("cpp-column", {"my_player.cpp": cpp_agent("column")}, "C++, first empty point by columns"),
        (
            "cpp-two-files",
            {"my_player.cpp": CPP_TWO_FILES_MAIN, "pick.cpp": CPP_TWO_FILES_PICK},
            "C++ in two files, nearest the centre",
        ),
        ("cpp11-random", {"my_player11.cpp": CPP11_AGENT % CPP11_CHOICES["random"]}, "C++11, seeded random"),
        ("cpp11-middle", {"my_player11.cpp": CPP11_AGENT % CPP11_CHOICES["middle"]}, "C++11, middle empty point"),
        ("java-first", {"my_player.java": JAVA_AGENT % JAVA_CHOICES["first"]}, "Java, first empty point"),
        ("java-last", {"my_player.java": JAVA_AGENT % JAVA_CHOICES["last"]}, "Java, last empty point"),
        ("java-random", {"my_player.java": JAVA_AGENT % JAVA_CHOICES["random"]}, "Java, seeded random"),
    ]
    first = python_agent("first")
    hostile = [
        (
            "x-cpp-opts-wrapper",
            {"my_player.cpp": cpp_agent("first"), "@opts.cpp": "-wrapper /bin/sh,-c,touch /tmp/PWNED-wrapper\n"},
            "C++ with @opts.cpp: g++ reading it as an option file would run touch /tmp/PWNED-wrapper",
        ),
        (
            "x-cpp-include-secret",
            {"my_player.cpp": f'#include "{secret_path}"\n' + cpp_agent("first")},
            "C++ including the grader's secret file (its text would show in the compiler's error)",
        ),
        (
            "x-symlink-secret",
            {"my_player3.py": first, "notes.txt": ("symlink", secret_path)},
            "Python with notes.txt a symbolic link to the grader's secret",
        ),
        (
            "x-fifo-in-folder",
            {"my_player3.py": first, "pipe": ("fifo",)},
            "Python with a FIFO in its folder (a copy that opens it blocks)",
        ),
        (
            "x-sparse-200mib",
            {"my_player3.py": first, "weights.bin": ("sparse", SPARSE_MIB)},
            f"Python with a {SPARSE_MIB} MiB sparse file",
        ),
        (
            "cmd:py-first-1::" + SPEC_NAME_COMMAND,
            {"my_player3.py": first},
            "an honest Python agent whose folder name, read as a spec, runs its own command",
        ),
        ("x-newline\nin-name", {"my_player3.py": first}, "an honest Python agent with a newline in its folder name"),
        (
            "x-output-symlink",
            {
                "my_player3.py": hostile_python(
                    "output.txt a link to the secret", OUTPUT_SYMLINK.format(secret=secret_path), False
                )
            },
            "Python making output.txt a symbolic link to the grader's secret",
        ),
        (
            "x-output-fifo",
            {"my_player3.py": hostile_python("output.txt a FIFO", OUTPUT_FIFO, False)},
            "Python making output.txt a FIFO",
        ),
        (
            "x-env-spy",
            {"my_player3.py": hostile_python("environment spy", ENVIRONMENT_SPY.format(token=SECRET_TOKEN))},
            "Python printing its environment to stderr, answering 9,9 if the grader's token is there",
        ),
        (
            "x-fork-bomb",
            {"my_player3.py": hostile_python("fork bomb", FORK_BOMB.format(bound=FORK_BOUND))},
            f"Python forking up to {FORK_BOUND} sleeping children a move",
        ),
        (
            "x-memfd-hog",
            {"my_player3.py": hostile_python("memfd hog", MEMFD_HOG.format(total=MEMFD_MIB, piece=MEMFD_PIECE_MIB))},
            f"Python holding {MEMFD_MIB} MiB in memfd files a move",
        ),
        (
            "x-cpu-burners",
            {
                "my_player3.py": hostile_python(
                    "CPU burners", CPU_BURNERS.format(burners=BURNERS, seconds=BURN_SECONDS, marker=BURNER_MARKER)
                )
            },
            f"Python leaving {BURNERS} children burning {BURN_SECONDS} s of CPU each, never reaped",
        ),
    ]
    return honest + hostile


def make_file(path, content):
    if isinstance(content, str):
        with open(path, "w") as handle:
            handle.write(content)
    elif content[0] == "symlink":
        os.symlink(content[1], path)
    elif content[0] == "fifo":
        os.mkfifo(path)
    elif content[0] == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(content[1] * 2**20)
    else:
        raise ValueError(f"unknown file kind {content!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--sample", type=int, help="only N entrants, spread over the list")
    args = parser.parse_args()
    outdir = os.path.abspath(args.outdir)
    secret_path = os.path.join(os.path.dirname(outdir), SECRET_FILE)
    os.makedirs(outdir)
    with open(secret_path, "w") as handle:
        handle.write(SECRET_TOKEN + "\n")
    os.chmod(secret_path, 0o644)  # readable by anyone: only the sandbox hides it
    chosen = entrants(secret_path)
    if args.sample:
        chosen = [chosen[index * len(chosen) // args.sample] for index in range(min(args.sample, len(chosen)))]
    for name, files, what in chosen:
        folder = os.path.join(outdir, name)
        os.mkdir(folder)
        for file_name, content in files.items():
            make_file(os.path.join(folder, file_name), content)
        print(f"{name!r}: {what}")
    print(f"{len(chosen)} entrants in {outdir}; secret in {secret_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
