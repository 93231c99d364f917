"""An agent's files as untrusted input: its folder copied, its ``output.txt`` read, its text shown.

An agent folder is copied as regular files and folders only. A symbolic link to a regular file
inside the folder is copied as that file's bytes; any other link (outside the folder, to a folder,
dangling), a FIFO, a socket or a device is refused with its name. Bytes are counted as they are
read, so a sparse file counts at its full size, and a copy past the folder limit stops there; its
holes (and any run of zeros a chunk long) stay holes, so a copy never takes more disk than its data.
A copy may share the files of a folder of the host's own (``shared``: an individual's build shares
its agent's build): a file with the same bytes at the same place is a hard link to that one, made
read-only, never a second copy.
A file the agent leaves for the host is opened without following a link and without blocking,
only when it is a regular file, and only its first ``READ_LIMIT`` bytes are read; what the host
shows of an agent's text is a short excerpt with everything unprintable escaped.

No folder an agent makes or submits can crash the host by its shape: a copy is refused past
``FOLDER_DEPTH`` levels or ``FOLDER_ENTRIES`` entries, naming the entry, and ``remove_tree``
removes a folder of any depth without recursion and without following a link.
"""

import errno
import os
import stat
from typing import List, NoReturn, Optional, Set, Tuple, Union

from engine.sandbox.limits import MIB, UntrustedFolderError

READ_LIMIT = 4096  # bytes of an agent's answer the host reads (a move is a few)
EXCERPT_CHARACTERS = 60  # of an agent's text in a fault
_CHUNK = 1 << 20
_ZEROS = bytes(_CHUNK)  # a chunk of these is left a hole in the copy
READ_ONLY = 0o555  # the modes a shared file keeps (its execute bits too): no one's write
FOLDER_DEPTH = 64  # levels of folders in a copy: far beyond any agent's, far below a recursion limit
FOLDER_ENTRIES = 10_000  # files and folders in a copy: the host's time to copy it stays small
# Version control, caches and evolution runs are no part of a player: not copied.
NOT_COPIED = frozenset((".git", "__pycache__", ".hypothesis", ".pytest_cache", "runs"))
NOT_COPIED_SUFFIXES = (".egg-info",)


class UntrustedFileError(OSError):
    """A file an agent left that the host will not read (a link, a FIFO, a device: not a regular file);
    ``kind`` says what it is ("a FIFO")."""

    def __init__(self, path: str, kind: str):
        OSError.__init__(self, errno.EINVAL, f"{os.path.basename(path)} is {kind}", path)
        self.kind = kind


def excerpt(text: Union[str, bytes], limit: int = EXCERPT_CHARACTERS, end: bool = False) -> str:
    """``text`` (str or bytes) shown safely: unprintable characters escaped, at most ``limit`` characters
    of it (its beginning, or with ``end`` its end, where the news of a crash is)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    shown = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if len(shown) <= limit:
        return shown
    return "..." + shown[-limit:] if end else shown[:limit] + "..."


def tail(path: str, limit: int) -> str:
    """The end of a log the host wrote for an agent (its stderr, its build's output), newlines shown as
    `` | ``, at most ``limit`` characters, shown safely; "" when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 4 * limit))
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return excerpt(text.replace("\n", " | "), limit, end=True)


def _kind(mode: int) -> str:
    for test, word in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return word
    return "not a regular file"


def open_regular(path: str, flags: int = os.O_RDONLY) -> int:
    """A descriptor of the regular file at ``path``, opened without following a link at its last step and
    without blocking; UntrustedFileError naming what it is instead (FileNotFoundError when missing)."""
    try:
        handle = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UntrustedFileError(path, "a symbolic link")
        raise
    mode = os.fstat(handle).st_mode
    if not stat.S_ISREG(mode):
        os.close(handle)
        raise UntrustedFileError(path, _kind(mode))
    return handle


def read_untrusted(path: str, limit: int = READ_LIMIT) -> Tuple[bytes, bool]:
    """The first ``limit`` bytes of the regular file at ``path`` and whether there were more."""
    handle = open_regular(path)
    try:
        data = b""
        while len(data) <= limit:
            chunk = os.read(handle, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(handle)
    return data[:limit], len(data) > limit


def write_new(path: str, text: str) -> None:
    """Write ``text`` to ``path``, which must not exist (never through a link or a FIFO left there)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(handle, "w") as out:
        out.write(text)


def _ignored(name: str) -> bool:
    return name in NOT_COPIED or name.endswith(NOT_COPIED_SUFFIXES)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class _Copy:
    """One folder copy under way: the bytes counted and the entries made so far against the caps."""

    def __init__(self, source: str, destination: str, cap_bytes: int, shared: Optional[str], shown: Optional[str]):
        self.source, self.root, self.cap, self.written = source, os.path.realpath(source), cap_bytes, 0
        self.destination, self.shared = destination, shared
        self.shown = shown or f"agent folder {excerpt(source, 200)}"
        self.entries = 0

    def refuse(self, path: str, why: str) -> NoReturn:
        raise UntrustedFolderError(f"{self.shown}: {excerpt(os.path.relpath(path, self.source), 120)} {why}")

    def add(self, path: str, size: int) -> None:
        self.written += size
        if self.written > self.cap:
            self.refuse(path, f"takes the folder past its limit of {self.cap // MIB} MiB (--folder-size)")

    def count(self, path: str) -> None:
        self.entries += 1
        if self.entries > FOLDER_ENTRIES:
            self.refuse(path, f"is past the {FOLDER_ENTRIES:,} files and folders a copy may hold")

    def file(self, path: str, destination: str) -> None:
        try:
            handle = open_regular(path)
        except UntrustedFileError as error:
            self.refuse(path, f"is {error.kind} (only regular files and folders are copied)")
        try:
            if self.shared is not None and self.linked(path, handle, destination):
                return
            with open(destination, "xb") as out:
                while True:
                    chunk = os.read(handle, _CHUNK)
                    if not chunk:
                        break
                    self.add(path, len(chunk))
                    if chunk == _ZEROS[: len(chunk)]:
                        out.seek(len(chunk), os.SEEK_CUR)  # a hole: no block written
                    else:
                        out.write(chunk)
                out.truncate()  # the size, where the file ends in a hole
                # By the descriptor: no name the copy's place holds can redirect it (a link put there).
                os.fchmod(out.fileno(), stat.S_IMODE(os.fstat(handle).st_mode) & 0o755 | 0o600)
        finally:
            os.close(handle)

    def linked(self, path: str, handle: int, destination: str) -> bool:
        """Whether ``destination`` was made a hard link to the shared folder's file at its place, which holds
        the same bytes as ``path`` (open as ``handle``: rewound where it does not); that file made read-only."""
        assert self.shared is not None
        twin = os.path.join(self.shared, os.path.relpath(destination, self.destination))
        try:
            other = open_regular(twin)
        except OSError:
            return False
        try:
            size = os.fstat(handle).st_size
            if os.fstat(other).st_size != size or not _same_bytes(handle, other):
                os.lseek(handle, 0, os.SEEK_SET)
                return False
            self.add(path, size)  # counted at its size, as a copy would be: the game's copy is one
            os.fchmod(other, stat.S_IMODE(os.fstat(other).st_mode) & READ_ONLY | 0o444)
            try:
                os.link(twin, destination, follow_symlinks=False)
            except OSError:  # another file system, or no links there: a copy
                os.lseek(handle, 0, os.SEEK_SET)
                self.written -= size
                return False
            return True
        finally:
            os.close(other)

    def link(self, path: str, destination: str) -> None:
        target = os.path.realpath(path)
        if not _inside(target, self.root):
            self.refuse(path, "is a symbolic link to outside the folder")
        if not os.path.isfile(target) or os.path.islink(target):
            self.refuse(path, "is a symbolic link to something other than a regular file")
        self.file(target, destination)

    def tree(self, top: str, destination: str) -> None:
        """Copy the folder ``top`` level by level (a stack, not recursion), refusing past FOLDER_DEPTH."""
        pending: List[Tuple[str, str, int]] = [(top, destination, 0)]
        while pending:
            path, made, depth = pending.pop()
            if depth > FOLDER_DEPTH:
                self.refuse(path, f"is more than {FOLDER_DEPTH} folders deep")
            if depth or not os.path.isdir(made) or os.listdir(made):
                os.mkdir(made, 0o755)  # the top may be a workspace's empty mount point
            with os.scandir(path) as found:
                entries = sorted(found, key=lambda e: e.name)
            for entry in entries:
                if _ignored(entry.name):
                    continue
                self.count(entry.path)
                inner, outer = entry.path, os.path.join(made, entry.name)
                if entry.is_symlink():
                    self.link(inner, outer)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append((inner, outer, depth + 1))
                else:
                    self.file(inner, outer)  # refused there unless a regular file


def _same_bytes(one: int, other: int) -> bool:
    """Whether the files open as ``one`` and ``other`` (of one size) hold the same bytes, read from their start."""
    offset = 0
    while True:
        chunk = os.pread(one, _CHUNK, offset)
        if chunk != os.pread(other, _CHUNK, offset):
            return False
        if not chunk:
            return True
        offset += len(chunk)


def copy_folder(
    source: str, destination: str, cap_bytes: int, shared: Optional[str] = None, shown: Optional[str] = None
) -> int:
    """Copy the agent folder ``source`` to ``destination`` (which must not exist, or an empty folder that
    is a mount point: a workspace) as untrusted input; the bytes counted (a sparse file's at its size).
    UntrustedFolderError naming the first entry refused (``shown`` names the folder there; default: the
    agent folder and its path); nothing is left of a refused copy. ``shared``: a folder of the host's own,
    never an agent's, whose file at a place is linked (made read-only) where ``source``'s holds the same bytes."""
    copy = _Copy(source, destination, cap_bytes, shared, shown)
    try:
        copy.tree(source, destination)
    except BaseException:
        remove_tree(destination)
        raise
    return copy.written


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> None:
    """Remove the folder ``path`` and all it holds, however deep, never following a link; what cannot be
    removed is left (a missing ``path`` is no error). Iterative: one open folder at a time, the names of
    the folders above kept in a list, so no depth reaches a recursion or descriptor limit."""
    try:
        handle = os.open(path, _DIRECTORY)
    except OSError:
        try:
            os.unlink(path)  # a file or a link where a folder was expected
        except OSError:
            pass
        return
    names: List[str] = []  # the folder names from ``path`` down to the open one
    stuck: Set[int] = set()  # the inodes of folders that could not be removed: not entered again
    while True:
        below = None
        with os.scandir(handle) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.inode() not in stuck:
                        below = entry.name
                        break
                    continue
                try:
                    os.unlink(entry.name, dir_fd=handle)
                except OSError:
                    pass
        if below is not None:
            try:
                inner = os.open(below, _DIRECTORY, dir_fd=handle)
            except OSError:
                stuck.add(os.stat(below, dir_fd=handle, follow_symlinks=False).st_ino)
                continue
            os.close(handle)
            handle = inner
            names.append(below)
            continue
        if not names:
            os.close(handle)
            break
        parent = os.open("..", _DIRECTORY, dir_fd=handle)
        os.close(handle)
        handle = parent
        name = names.pop()
        try:
            os.rmdir(name, dir_fd=handle)
        except OSError:
            stuck.add(os.stat(name, dir_fd=handle, follow_symlinks=False).st_ino)
    try:
        os.rmdir(path)
    except OSError:
        pass
