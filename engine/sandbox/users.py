"""The users sandboxes run as: under root, each sandbox a uid of its own, held while it lives.

No two sandboxes that live at the same time share a user, so that one sandbox (or a local user who
became one sandbox's user) can neither read, write, signal nor trace another's files and processes:
the kernel's own checks, which hold without Yama and without a word from littlego. The uids are
``FIRST_UID`` to ``FIRST_UID + USERS - 1``, each with a group of the same number, none of them an
account of the system (a uid that ``/etc/passwd`` names, a gid that ``/etc/group`` names, and any id in
a subordinate range of ``/etc/subuid`` or ``/etc/subgid`` is skipped). A sandbox holds its uid by a
lock (``flock``) on a file of its own in ``LEASES`` (a root-only folder): another littlego process
on the machine sees it held, and a process that dies lets it go with its locks (a process forked from
it closes the leases it inherited, so that only their holder keeps them). Where littlego is
not root, every sandbox runs as the user who runs it (``lease`` gives None): there is no other
user to give.
"""

import fcntl
import grp
import os
import pwd
import stat
from typing import List, NamedTuple, Optional, Set, Tuple

from engine.sandbox.limits import SandboxError

FIRST_UID = 1_900_000_000  # above the ids that systems give accounts and containers (<= 1,879,048,191)
USERS = 4096  # sandboxes alive at once on one machine, all littlego processes together
# Where the leases are kept, the first that can be made: root's alone (0700).
LEASE_ROOTS = ("/run/littlego/users", "/var/tmp/littlego/users")
PRIVATE = 0o700
SUBORDINATE_RANGES = ("/etc/subuid", "/etc/subgid")  # name:first:count, the ids user namespaces map
_held: Set[int] = set()  # this process's lease descriptors: a forked child closes them (_forget)


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
            _held.discard(self._handle)
            os.close(self._handle)  # the lock goes with the descriptor
            self._handle = None

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def _forget() -> None:
    """In a forked child: close the leases it inherited (the parent holds them, and lets them go)."""
    for handle in list(_held):
        try:
            os.close(handle)
        except OSError:
            pass
    _held.clear()


os.register_at_fork(after_in_child=_forget)


def private_folder(path: str) -> None:
    """Make ``path`` (and what is missing above it) a folder that root alone can read, write and enter;
    OSError where it, or a folder above it, could be changed by another user (not root's, a link, or open
    to others' writes without the sticky bit): a folder another user made first is never trusted."""
    os.makedirs(path, PRIVATE, exist_ok=True)
    path = os.path.abspath(path)
    parts = path.split(os.sep)[1:]
    for depth in range(len(parts)):
        place = os.sep + os.sep.join(parts[: depth + 1])
        found = os.lstat(place)
        open_to_others = found.st_mode & 0o022 and not found.st_mode & stat.S_ISVTX
        if not stat.S_ISDIR(found.st_mode) or found.st_uid != 0 or open_to_others:
            raise OSError(f"{place} is not a folder of root's alone: a sandbox's files are not kept there")
    os.chmod(path, PRIVATE)  # an older littlego made it 0755


def _lease_root() -> str:
    for root in LEASE_ROOTS:
        try:
            private_folder(root)
            return root
        except OSError:
            continue
    raise SandboxError(f"no folder for the sandboxes' user leases can be made ({', '.join(LEASE_ROOTS)})")


def _subordinate_ranges() -> List[Tuple[int, int]]:
    """(first, count) of every range that /etc/subuid and /etc/subgid give a user's namespaces."""
    ranges = []
    for name in SUBORDINATE_RANGES:
        try:
            with open(name) as table:
                lines = table.read().splitlines()
        except OSError:
            continue
        for line in lines:
            fields = line.strip().split(":")
            if len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
                ranges.append((int(fields[1]), int(fields[2])))
    return ranges


def _taken(uid: int, ranges: List[Tuple[int, int]]) -> bool:
    """Whether ``uid`` (and the gid of the same number) is an account's, a group's, or a subordinate id."""
    if any(first <= uid < first + count for first, count in ranges):
        return True
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            pass
    return False


def lease() -> Lease:
    """A user no other living sandbox of this machine runs as, held until ``release``; under root only
    (elsewhere a Lease of None). SandboxError where all USERS are held."""
    if os.geteuid() != 0:
        return Lease(None, None)
    root = _lease_root()
    ranges = _subordinate_ranges()
    start = os.getpid() % USERS  # processes start their search apart: fewer held locks tried
    for step in range(USERS):
        uid = FIRST_UID + (start + step) % USERS
        if _taken(uid, ranges):
            continue
        handle = os.open(os.path.join(root, str(uid)), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(handle)
            continue
        _held.add(handle)
        return Lease(SandboxUser(uid, uid), handle)
    raise SandboxError(f"all {USERS} sandbox users ({FIRST_UID}-{FIRST_UID + USERS - 1}) are in use on this machine")
