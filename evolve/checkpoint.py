"""A run's checkpoint: the whole evolution state after a generation, written and read in one place."""

import os
import pickle

from engine.protocol import write_atomic

CHECKPOINT = "checkpoint.pkl"

# What a checkpoint holds; a file without all of these is not one of ours.
STATE_KEYS = ("config", "generation", "population", "halloffame", "logbook", "records", "strategy",
              "random_state", "numpy_state")


class RunError(ValueError):
    """A run folder that cannot be used; the message names the folder and the problem."""


def save_checkpoint(run_dir, state):
    """Write the state (a dict with STATE_KEYS) atomically: a kill leaves the previous checkpoint whole."""
    write_atomic(os.path.join(run_dir, CHECKPOINT), pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))


def load_checkpoint(run_dir):
    """The state a run's last checkpoint holds; RunError saying what is wrong with the folder or file."""
    if not os.path.isdir(run_dir):
        raise RunError("{}: no such run folder".format(run_dir))
    path = os.path.join(run_dir, CHECKPOINT)
    if not os.path.exists(path):
        raise RunError("{}: no checkpoint (not a run folder, or the run never finished generation 0)".format(run_dir))
    try:
        with open(path, "rb") as handle:
            state = pickle.load(handle)
    except OSError as error:
        raise RunError("{}: cannot read: {}".format(path, error.strerror or error))
    except Exception as error:          # unpickling can raise almost anything on a damaged file
        raise RunError("{}: not a readable checkpoint ({}: {})".format(path, type(error).__name__, error))
    if not isinstance(state, dict) or any(key not in state for key in STATE_KEYS):
        raise RunError("{}: not an evolve checkpoint (it lacks the run's state)".format(path))
    return state
