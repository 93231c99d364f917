"""Grade every entrant of a class (tests/fixtures/make_class.py), one ``littlego grade`` each; record what came back.

    GRADER_TOKEN=SECRET-TOKEN-XYZ python3 experiments/sandbox-class-20261124/grade_class.py OUTDIR RESULTS.json

Each folder is named to ``littlego grade`` relative to OUTDIR (the working directory), as a student's
folder would be: a name that also reads as a player spec (``cmd:DIR::COMMAND``) must still be graded as
the folder. Per entrant it records the exit status, the wall time, the points, every fault (the same
text once, with its count), whether the report is complete (both stages, six opponents) and whether the
secret token appears anywhere in what the command printed. Standard library only.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

SECRET_TOKEN = "SECRET-TOKEN-XYZ"
OPPONENTS = 6  # fall2023: four in stage 1, two in stage 2
COMMAND = [
    "littlego",
    "grade",
    None,
    "--games",
    "1",
    "--jobs",
    "2",
    "--sandbox",
    "strict",
    "--championship",
    "random",
    "--json",
]


def generic(fault):
    """A fault with what changes between games (the temporary folder, the point) made generic."""
    fault = re.sub(r"littlego-player-\w+", "littlego-player-XXX", fault)
    fault = re.sub(r"^game \d+: ", "", fault)
    return re.sub(r"\b\d,\d is\b", "i,j is", fault)


def grade(name, outdir):
    argv = [name if word is None else word for word in COMMAND]
    started = time.time()
    done = subprocess.run(argv, cwd=outdir, capture_output=True, check=False)
    wall = time.time() - started
    printed = done.stdout + done.stderr
    record = {
        "entrant": name,
        "status": done.returncode,
        "wall_s": round(wall, 1),
        "token_printed": SECRET_TOKEN.encode() in printed,
    }
    try:
        report = json.loads(done.stdout)
    except ValueError:
        record["error"] = done.stderr.decode("utf-8", "replace")[-2000:]
        return record
    opponents = [o for stage in report["stages"] for o in stage["opponents"]]
    faults = collections.Counter(generic(f) for o in opponents for f in o["faults"])
    record.update(
        points=report["points"],
        max_points=report["max_points"],
        complete=len(report["stages"]) == 2 and len(opponents) == OPPONENTS,
        games=sum(o["games"] for o in opponents),
        wins=sum(o["wins"] for o in opponents),
        faults=[{"count": n, "fault": f[:400]} for f, n in faults.most_common()],
        notes=[n[:400] for n in report.get("notes") or []],
    )
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("results")
    args = parser.parse_args()
    outdir = os.path.abspath(args.outdir)
    records = []
    for name in sorted(os.listdir(outdir)):
        record = grade(name, outdir)
        records.append(record)
        print(
            "{!r}: status {status}, {wall_s} s, points {}".format(name, record.get("points"), **record), file=sys.stderr
        )
    with open(args.results, "w") as out:
        json.dump(records, out, indent=1)


if __name__ == "__main__":
    main()
