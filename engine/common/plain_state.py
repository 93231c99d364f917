"""State that runs no code when it is read back: a random stream's state as JSON data, and a
reader of the pickles that older versions wrote which admits only the classes they held.

A pickle calls whatever functions it names while it is read, so a run or training folder handed
over (a student's "here is my run") would run its author's code on the first command that reads
it. The state of a folder is JSON data instead. ``load_pickle`` reads an older folder's pickle
through ``find_class``, the one door by which a pickle reaches a function: a name outside the
admitted ones is refused before any of the pickle's code runs.
"""

import pickle
import random
from typing import IO, Any, Dict, Iterable, List, Mapping, Optional, Tuple

_VERSION = 3  # random.Random.getstate()'s (the Mersenne Twister's) version since Python 3.2
_WORDS = 624  # the twister's 32-bit words; its state is these and the index of the next
_WORD = 2**32

Admitted = Mapping[Tuple[str, str], Any]  # (module, name) a pickle may name: what it gets for it


# -- checking JSON data: each a ValueError saying what ``what`` must be -------------------------------


def number(value: object, what: str) -> float:
    """``value`` where it is a JSON number (not a boolean)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"{what} is a number, not {_shown(value)}")
    return value


def whole_number(value: object, what: str) -> int:
    """``value`` where it is a whole number, 0 or more."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} is a whole number, not {_shown(value)}")
    return value


def items(value: object, what: str) -> List[Any]:
    """``value`` where it is a JSON list."""
    if not isinstance(value, list):
        raise ValueError(f"{what} is a list, not {_shown(value)}")
    return value


def numbers(value: object, what: str, length: Optional[int] = None) -> List[float]:
    """``value`` where it is a list of numbers (of ``length`` of them, where given)."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError(f"{what} is a list of {length if length is not None else 'some'} numbers")
    return [number(x, what) for x in value]


def fields(value: object, what: str, names: Iterable[str]) -> Dict[str, Any]:
    """``value`` where it is a JSON object with (at least) the keys ``names``."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} is an object, not {_shown(value)}")
    missing = [name for name in names if name not in value]
    if missing:
        raise ValueError(f"{what} lacks {missing[0]!r}")
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"


# -- random streams -----------------------------------------------------------------------------------


def random_state_to_json(state: Tuple[Any, ...]) -> List[Any]:
    """``random.Random.getstate()`` as JSON data: [version, [its 625 numbers], the cached gauss or null]."""
    version, internal, gauss_next = state
    return [version, list(internal), gauss_next]


def random_state_from_json(data: object) -> Tuple[Any, ...]:
    """The ``random.Random.setstate`` argument of ``random_state_to_json``'s data; ValueError saying
    what is wrong where it is not one."""
    if not (isinstance(data, list) and len(data) == 3 and data[0] == _VERSION and isinstance(data[1], list)):
        raise ValueError(f"a random state is [{_VERSION}, [{_WORDS + 1} integers], a number or null]")
    internal, gauss_next = data[1], data[2]
    if len(internal) != _WORDS + 1 or not all(
        isinstance(word, int) and not isinstance(word, bool) and 0 <= word < _WORD for word in internal
    ):
        raise ValueError(f"a random state's words are {_WORDS + 1} integers from 0 to 2**32 - 1")
    if internal[-1] > _WORDS:
        raise ValueError(f"a random state's index is 0 to {_WORDS}, not {internal[-1]}")
    if gauss_next is not None:
        number(gauss_next, "a random state's cached gauss")
    state = (_VERSION, tuple(internal), gauss_next)
    random.Random().setstate(state)  # whatever else the twister refuses
    return state


# -- older pickles ------------------------------------------------------------------------------------


class RefusedPickle(pickle.UnpicklingError):
    """A pickle naming a function or class outside those admitted; nothing of it has run."""


class _AdmittingUnpickler(pickle.Unpickler):
    def __init__(self, handle: IO[bytes], admitted: Admitted) -> None:
        super().__init__(handle)
        self.admitted = admitted

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self.admitted[(module, name)]
        except KeyError:
            raise RefusedPickle(f"it calls for {module}.{name}, which no checkpoint holds") from None

    def persistent_load(self, pid: Any) -> Any:
        raise RefusedPickle("it calls for an object outside the file")


def load_pickle(handle: IO[bytes], admitted: Admitted) -> object:
    """The object a pickle holds, made of builtin data and the ``admitted`` classes alone (a pickle of
    plain data names none); RefusedPickle, before any of its code runs, where it names anything else."""
    return _AdmittingUnpickler(handle, admitted).load()
