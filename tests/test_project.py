"""The project's promises about itself: CI runs the README's test command."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ci_runs_the_readmes_test_command_verbatim():
    readme = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    test_command = [b for b in blocks if "pytest" in b][0]
    ci_lines = open(os.path.join(ROOT, ".ci", "run")).read().splitlines()
    assert test_command in ci_lines
