"""Where a player's copy lives for a game: a private folder with a disk and a file quota, removed whole.

Where littlego may mount (as root: a grading machine, CI, a container), each workspace is a tmpfs
of its own: the folder copy (``folder``) and the sandbox's ``/tmp`` and ``/dev/shm``
(``scratch``) share its quota (``Limits.workspace_mb`` bytes, ``WORKSPACE_ENTRIES`` files and
folders), so the agent can fill it, but only it: the host's own files and the opponent's copy
never run out of room. Each game has a workspace of its own, and removing it is one unmount, whatever
the agent left in it. A workspace belongs to its sandbox alone: under root it holds the sandbox's
user (``users.lease``), its tmpfs is mounted ``nosuid,nodev`` and 0700 (root's), its folders are that
user's, 0700, and the roots it is made in are root's, 0700: no other sandbox and no local user reads,
writes or runs anything in it. Elsewhere the
copy is a folder on the host's disk, bounded by the copy's caps and each file's size limit and
removed by ``remove_tree``; a write of the host's that fails there (a full disk) is the host's
``HostError``, never a player's fault.

A littlego process that is killed mid-game leaves its mounts; the next one to make a workspace
unmounts those whose process has ended (``sweep_mounts``), as the cgroups are swept.
"""

import ctypes
import errno
import functools
import os
import tempfile
from typing import Dict, Optional

from engine.sandbox.files import FOLDER_ENTRIES, remove_tree
from engine.sandbox.limits import MIB, HostError, Limits
from engine.sandbox.users import PRIVATE, SandboxUser, lease, private_folder

# Files and folders a workspace holds: the copy's own and as many again that the agent makes.
WORKSPACE_ENTRIES = 2 * FOLDER_ENTRIES
FOLDER_PREFIX = "littlego-player-"  # of the temporary folders, and (with the process id) the mounts' source
# Where workspaces with a quota are made: outside /tmp, where a sandbox binds its own scratch /tmp.
QUOTA_ROOTS = ("/run/littlego", "/var/tmp/littlego")
_MNT_DETACH = 2  # umount2: detach now, free once nothing uses it
_MS_NOSUID, _MS_NODEV = 2, 4  # mount(2): no set-user-id program and no device file works in it
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(folder: str, size_bytes: int) -> bool:
    """Mount a tmpfs of ``size_bytes`` and WORKSPACE_ENTRIES inodes on ``folder``; False where refused."""
    options = f"size={size_bytes},nr_inodes={WORKSPACE_ENTRIES},mode={PRIVATE:04o}".encode()
    source = f"{FOLDER_PREFIX}{os.getpid()}".encode()
    try:
        status: int = _libc().mount(source, folder.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
        return status == 0
    except (OSError, AttributeError):
        return False


def _unmount(folder: str) -> None:
    try:
        _libc().umount2(folder.encode(), _MNT_DETACH)
    except (OSError, AttributeError):
        pass


def sweep_mounts() -> None:
    """Unmount and remove the workspaces that littlego processes which have ended left mounted."""
    try:
        with open("/proc/self/mountinfo") as mountinfo:
            lines = mountinfo.read().splitlines()
    except OSError:
        return
    for line in lines:
        fields, _, after = line.partition(" - ")
        parts = after.split(" ")
        if len(parts) < 2 or parts[0] != "tmpfs" or not parts[1].startswith(FOLDER_PREFIX):
            continue
        owner = parts[1][len(FOLDER_PREFIX) :]
        point = fields.split(" ")[4]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            _unmount(point)
            remove_tree(point)


@functools.lru_cache(maxsize=None)
def quota_root() -> Optional[str]:
    """The folder that workspaces with a quota are made in, where littlego may mount a tmpfs there;
    None where it may not (tried once a process)."""
    for root in QUOTA_ROOTS:
        try:
            private_folder(root)
            probe = tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=root)
        except OSError:
            continue
        try:
            if not _mount_tmpfs(probe, MIB):
                return None
            _unmount(probe)
            sweep_mounts()
            return root
        finally:
            remove_tree(probe)
    return None


SCRATCH = {"/tmp": "tmp", "/dev/shm": "shm"}  # a sandbox's writable places beside the copy: the folder of each


class Workspace:
    """One player's folder for a game: ``folder`` (empty until the copy) and, where ``quota``, the
    ``scratch`` folders the sandbox binds as its /tmp and /dev/shm ({place: folder}; else None); ``user``:
    the user its sandbox runs as, held until ``close`` (None where littlego is not root)."""

    def __init__(self, limits: Limits):
        self._lease = lease()
        self.user: Optional[SandboxUser] = self._lease.user
        try:
            self._make(limits)
        except BaseException:
            self._lease.release()
            raise

    def _make(self, limits: Limits) -> None:
        root = quota_root()
        self.top = tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=root)  # 0700, root's
        self.limits = limits
        self.quota = root is not None and _mount_tmpfs(self.top, limits.workspace_mb * MIB)
        self.folder = os.path.join(self.top, "play")
        os.mkdir(self.folder, PRIVATE)  # the sandbox's user's once the copy is in (isolation.prepare_folder)
        self.scratch: Optional[Dict[str, str]] = None
        if self.quota:
            self.scratch = {place: os.path.join(self.top, name) for place, name in SCRATCH.items()}
            for folder in self.scratch.values():
                os.mkdir(folder, PRIVATE)
                if self.user:
                    os.chown(folder, self.user.uid, self.user.gid)

    def describe_full(self) -> str:
        """The words of a fault where the agent filled its own workspace."""
        quota = f"{self.limits.workspace_mb} MiB, {WORKSPACE_ENTRIES:,} files and folders"
        return f"its folder is full (the copy's quota: {quota})"

    def host_write_failed(self, name: str, error: OSError) -> str:
        """The error to raise where the host's write of ``name`` failed with ``error``: the player's fault
        (returned as a message) only where the agent filled its own quota; else HostError (raised)."""
        if self.quota and error.errno in DISK_FULL:
            return self.describe_full()
        raise HostError(f"the host cannot write {name} into {self.folder}: {error.strerror or error}") from error

    def close(self) -> None:
        """Remove the folder and whatever the agent left in it."""
        if self.quota:
            _unmount(self.top)
            self.quota = False
        remove_tree(self.top)
        self._lease.release()
