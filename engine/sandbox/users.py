"""The users sandboxes run as: under root, each sandbox a uid of its own, held while it lives.

No two sandboxes that live at the same time share a user, so that one sandbox (or a local user who
became one sandbox's user) can neither read, write, signal nor trace another's files and processes:
the kernel's own checks, which hold without Yama and without a word from littlego. The uids are
``FIRST_UID`` to ``FIRST_UID + USERS - 1``, each with a group of the same number, none of them an
account of the system (a uid that ``/etc/passwd`` names is skipped). A sandbox holds its uid by a
lock (``flock``) on a file of its own in ``LEASES`` (a root-only folder): another littlego process
on the machine sees it held, and a process that dies lets it go with its locks. Where littlego is
not root, every sandbox runs as the user who runs it (``lease`` gives None): there is no other
user to give.
"""

import fcntl
import os
import pwd
from typing import NamedTuple, Optional

from engine.sandbox.limits import SandboxError

FIRST_UID = 1_900_000_000  # above the ids that systems give accounts and containers (<= 1,879,048,191)
USERS = 4096  # sandboxes alive at once on one machine, all littlego processes together
# Where the leases are kept, the first that can be made: root's alone (0700).
LEASE_ROOTS = ("/run/littlego/users", "/var/tmp/littlego/users")
PRIVATE = 0o700


class SandboxUser(NamedTuple):
    """The user and group a sandbox's processes run as (numbers; no account names them)."""

    uid: int
    gid: int


class Lease:
    """One sandbox's hold on its user, from ``lease()`` to ``release``; ``user`` is None where littlego is
    not root (the sandbox runs as littlego's own user)."""

    def __init__(self, user: Optional[SandboxUser], handle: Optional[int]):
        self.user, self._handle = user, handle

    def release(self) -> None:
        """Let the user go: another sandbox may take it from now on."""
        if self._handle is not None:
            os.close(self._handle)  # the lock goes with the descriptor
            self._handle = None

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def private_folder(path: str) -> None:
    """Make ``path`` (and what is missing above it) a folder that root alone can read, write and enter."""
    os.makedirs(path, PRIVATE, exist_ok=True)
    os.chmod(path, PRIVATE)  # an older littlego made it 0755


def _lease_root() -> str:
    for root in LEASE_ROOTS:
        try:
            private_folder(root)
            return root
        except OSError:
            continue
    raise SandboxError(f"no folder for the sandboxes' user leases can be made ({', '.join(LEASE_ROOTS)})")


def _named(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def lease() -> Lease:
    """A user no other living sandbox of this machine runs as, held until ``release``; under root only
    (elsewhere a Lease of None). SandboxError where all USERS are held."""
    if os.geteuid() != 0:
        return Lease(None, None)
    root = _lease_root()
    start = os.getpid() % USERS  # processes start their search apart: fewer held locks tried
    for step in range(USERS):
        uid = FIRST_UID + (start + step) % USERS
        if _named(uid):
            continue
        handle = os.open(os.path.join(root, str(uid)), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(handle)
            continue
        return Lease(SandboxUser(uid, uid), handle)
    raise SandboxError(f"all {USERS} sandbox users ({FIRST_UID}-{FIRST_UID + USERS - 1}) are in use on this machine")
