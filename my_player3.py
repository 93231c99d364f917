"""Little-Go agent for the course host: reads input.txt, writes output.txt (engine/agent.py)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from engine.agent import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(params_path=os.path.join(HERE, "params.json"), book_path=os.path.join(HERE, "book.json")))
