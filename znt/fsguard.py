"""Opening files in a tree that may be hostile: a cloned repository can hold symlinks, FIFOs
and a committed ``.znt/`` of its own, and can change between two looks at it.

Two jobs, one rule (nothing read or written outside the project, docs/security.md):

* **Reading project source** (``read_source``): the relative path is opened component by
  component from the project root's descriptor, every component with ``O_NOFOLLOW``, the file
  itself also ``O_NONBLOCK`` (a FIFO put in its place cannot block the open), and the opened
  descriptor must be a regular file. So a file or a folder swapped for a link since the walk is
  refused, whatever it points to, and a path with ``..`` never leaves the root.
* **Writing in ``.znt/``** (``open_private``, ``write_private``, ``remove_foreign``): the folder
  is znt's own. Every file is opened relative to the folder's descriptor with ``O_NOFOLLOW``; an
  entry under one of our names that is a link, a FIFO or anything but a regular file was not
  made by us and is removed (the link itself, never what it points to) before the open.
  ``.znt`` itself being a link is refused: removing it would change the user's tree.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from znt.errors import UsageError

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW


class UnsafePath(OSError):
    """A path that would leave the project or is not a regular file; ``strerror`` says which,
    in words a scan problem or an error message can show."""

    def __init__(self, reason: str) -> None:
        super().__init__(errno.EPERM, reason)


def _parts(rel: str) -> list[str]:
    if not rel or "\0" in rel or rel.startswith("/"):
        raise UnsafePath("not a path inside the project")
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise UnsafePath("not a path inside the project")
    return parts


def open_source(root: str | os.PathLike[str], rel: str) -> int:
    """A read-only descriptor of the regular file ``rel`` under ``root``, reached without
    following any link below ``root``. Raises ``FileNotFoundError`` when it is gone,
    ``UnsafePath`` when a component is a link or the file is not a regular file."""
    parts = _parts(rel)
    fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath("a folder on its path is a symbolic link") from None
                raise
            os.close(fd)
            fd = nxt
        try:
            file_fd = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePath("it is a symbolic link") from None
            raise
    finally:
        os.close(fd)
    try:
        st = os.fstat(file_fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath("not a regular file")
        os.set_blocking(file_fd, True)
    except BaseException:
        os.close(file_fd)
        raise
    return file_fd


def read_source(
    root: str | os.PathLike[str], rel: str, max_bytes: int | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes (at most ``max_bytes``) and the status of project file ``rel``, read through
    ``open_source``."""
    fd = open_source(root, rel)
    try:
        st = os.fstat(fd)
        limit = st.st_size if max_bytes is None else min(st.st_size, max_bytes)
        chunks = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_regular(path: Path, max_bytes: int = 64 << 20) -> bytes:
    """The bytes of ``path`` when its last component is a regular file (not a link, not a
    FIFO); ``UnsafePath`` otherwise. For files in ``.znt/`` and the project's own settings."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"{path.name} is a symbolic link") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(f"{path.name} is not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(max_bytes)
    finally:
        os.close(fd)


# -- .znt/ -----------------------------------------------------------------------------------


def private_dir(folder: Path, *, create: bool = True) -> int:
    """A descriptor of znt's folder ``folder`` (``<root>/.znt``), created when missing; a link
    in its place is refused with a usage error that says what to do."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o755)
    try:
        return os.open(folder, _DIR_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            kind = "a symbolic link" if folder.is_symlink() else "not a folder"
            raise UsageError(
                f"{folder} is {kind}; znt writes only into a real folder there "
                f"(remove it, and znt makes its own)",
                path=str(folder),
            ) from None
        raise


def _remove_entry(dir_fd: int, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        _remove_tree(dir_fd, name)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)


def _remove_tree(dir_fd: int, name: str) -> None:
    """Remove folder ``name`` below ``dir_fd`` without following any link inside it."""
    try:
        sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        return
    try:
        for entry in os.listdir(sub):
            _remove_entry(sub, entry)
    finally:
        os.close(sub)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=dir_fd)


def remove_foreign(folder: Path, names: tuple[str, ...], *, dirs: tuple[str, ...] = ()) -> None:
    """In znt's ``folder``, remove every entry of ``names`` that is not a regular file and every
    entry of ``dirs`` that is not a real folder (links are removed as links). For the files
    DuckDB opens itself, by name, following links: its database, WAL and temporary folder."""
    fd = private_dir(folder, create=False)
    try:
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                _remove_entry(fd, name)
        for name in dirs:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                _remove_entry(fd, name)
    finally:
        os.close(fd)


def remove_private(folder: Path, name: str) -> None:
    """Remove ``name`` (a file, a link or a whole folder, never what a link points to)."""
    try:
        fd = private_dir(folder, create=False)
    except (FileNotFoundError, UsageError):
        return
    try:
        _remove_entry(fd, name)
    finally:
        os.close(fd)


def open_private(folder: Path, name: str, flags: int, mode: int = 0o644) -> int:
    """Open ``name`` in znt's ``folder`` without following a link; an entry of that name that
    is not a regular file is removed first (it was not made by znt). The descriptor is
    checked to be a regular file."""
    fd = private_dir(folder)
    try:
        for attempt in range(2):
            try:
                out = os.open(name, flags | os.O_NONBLOCK | _NOFOLLOW, mode, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO) or attempt:
                    raise
                _remove_entry(fd, name)
                continue
            if stat.S_ISREG(os.fstat(out).st_mode):
                os.set_blocking(out, True)
                return out
            os.close(out)
            if attempt:
                raise UnsafePath(f"{name} in {folder} is not a regular file")
            _remove_entry(fd, name)
        raise UnsafePath(f"cannot open {name} in {folder}")  # pragma: no cover
    finally:
        os.close(fd)


def write_private(folder: Path, name: str, data: bytes, mode: int = 0o644) -> None:
    """Replace ``name`` in znt's ``folder`` with ``data`` atomically: a new file made with
    ``O_EXCL`` (so never through a link) is renamed over the old entry, whatever that was."""
    fd = private_dir(folder)
    tmp = f".{name}.{os.getpid()}.tmp"
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=fd)
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
        finally:
            os.close(out)
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            _remove_tree(fd, name)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise
    finally:
        os.close(fd)
