"""One supervisor for each run of a course program, owning the program's whole process tree.

``run_supervised`` starts this file as a small process of its own (``python -I -S``; it imports
only the standard library), which runs the program's shell command in a new session and

- drains the program's stdout and stderr as they come into logs capped at ``LOG_CAP`` bytes each
  (the first ``LOG_CAP`` bytes, then a line saying how many bytes were cut, then the last
  ``LOG_TAIL``), and keeps the last ``STDERR_TAIL`` bytes of stderr for the verdict: its memory,
  and the caller's, stay bounded whatever the program writes;
- stops the program at the time limit;
- once the program's main process has ended, on a timeout, when it is told to stop (SIGTERM,
  SIGINT or SIGHUP: its caller was interrupted) and when its caller dies, kills every process the
  program started: the program's process group, then, on Linux, every process that descends from
  the supervisor or belongs to the program's session, found in ``/proc``, until none is left. The
  supervisor is a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so a process that left the
  program's session (``setsid``) and lost its parent is re-parented to the supervisor, not to init,
  and is still found;
- learns of its caller's death from the kernel (``prctl(PR_SET_PDEATHSIG)``) or, where that is
  missing, by checking its parent twice a second; it then removes the folder it was given for that
  case (the player's temporary folder), after the program's tree is gone.

Where a mechanism is missing the rest still holds: without ``/proc`` or ``prctl`` (macOS, the
BSDs) the program's process group is killed, but a process that left its session may survive;
without a Python executable to start (an embedded interpreter) the same loop runs in the calling
process, without the subreaper (a descendant that left the session and lost its parent is then
out of reach).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time

LOG_CAP = 4 * 2**20      # bytes of each log kept from its start
LOG_TAIL = 64 * 2**10    # bytes kept from the end of a log that was cut
STDERR_TAIL = 4096       # bytes of stderr's end returned for the verdict
CHUNK = 2**16            # bytes read from a pipe at once
CHECK_EVERY = 0.5        # seconds between checks that the caller is alive
STOP_GRACE = 10.0        # seconds a stopped supervisor has to end the tree before it is killed
SLACK = 30.0             # seconds past the time limit before the caller gives up on the supervisor
SWEEP_LIMIT = 10.0       # seconds of kill sweeps before the supervisor gives up on a process
STOPPED = 3              # the supervisor's exit status when it was stopped
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP")
                     if hasattr(signal, name))
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


class Stop(Exception):
    """The supervisor was told to stop (a signal) or its caller died."""


class CappedLog:
    """A program's output stream: its log on disk, capped, and the last bytes kept in memory."""

    def __init__(self, path: str | None, cap: int = LOG_CAP, tail: int = LOG_TAIL):
        self.cap, self.tail_size = cap, tail
        self.total = 0              # bytes the program wrote
        self.head = 0               # bytes of them in the log's head
        self.tail = bytearray()     # past the head: the last ``tail`` bytes
        self.last = bytearray()     # the last STDERR_TAIL bytes of the stream
        try:
            self.file = open(path, "wb") if path else None  # noqa: SIM115 - closed in close()
        except OSError:
            self.file = None        # no log (a full disk, say); the stream is still drained

    def write(self, data: bytes) -> None:
        self.total += len(data)
        self.last += data[-STDERR_TAIL:]
        del self.last[:-STDERR_TAIL]
        room = max(0, self.cap - self.head)
        if room:
            self._write(data[:room])
            self.head += min(room, len(data))
        if len(data) > room:
            self.tail += data[room:][-self.tail_size:]
            del self.tail[:-self.tail_size]

    def _write(self, data: bytes) -> None:
        if self.file is None:
            return
        try:
            self.file.write(data)
        except OSError:
            self._close_file()

    def _close_file(self) -> None:
        try:
            self.file.close()
        except OSError:
            pass
        self.file = None

    def close(self) -> None:
        cut = self.total - self.head - len(self.tail)
        if cut > 0:
            self._write(f"\n[tictacgo: {cut} bytes cut here; this log keeps the first {self.head} and the "
                        f"last {len(self.tail)} of the {self.total} bytes written]\n".encode())
        self._write(bytes(self.tail))
        if self.file is not None:
            self._close_file()


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` on Linux; False where it is missing or refused."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _processes() -> dict[int, tuple[int, int, bytes]] | None:
    """``{pid: (ppid, session, state)}`` of every process ``/proc`` shows; None without ``/proc``."""
    if not os.path.isdir("/proc/self"):
        return None
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    table = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                text = f.read()
            fields = text[text.rindex(b")") + 2:].split()
            table[int(name)] = (int(fields[1]), int(fields[3]), fields[0])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return table


def _tree(table: dict[int, tuple[int, int, bytes]], roots: set[int], session: int) -> set[int]:
    """The processes below ``roots`` or in ``session`` (and all below those), roots included."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    todo = [pid for pid in roots if pid in table]
    todo += [pid for pid, (_, sid, _) in table.items() if sid == session]
    found: set[int] = set()
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to the program's process group (the program alone where there are no groups)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - not POSIX
            proc.kill()
    except OSError:  # ProcessLookupError (no one left), PermissionError
        pass


def _ended(proc: subprocess.Popen) -> bool:
    """Whether the program's main process has ended, without reaping it (its group id stays reserved)."""
    if proc.returncode is not None:
        return True
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return proc.poll() is not None
    return proc.poll() is not None


def end_tree(proc: subprocess.Popen, subreaper: bool) -> None:
    """Kill the program's process group, then every process of its tree, then reap its main process.

    The main process is reaped last, so that its id (the group's and the session's) cannot be
    taken by another process meanwhile. With ``subreaper`` (this process is a dedicated
    supervisor and a child subreaper) every descendant of this process is the program's, and
    orphans come back here to be reaped; otherwise only the program's descendants that /proc
    still links to it or its session are found, and nothing else is reaped here.
    """
    _kill_group(proc)
    me = os.getpid()
    deadline = time.monotonic() + SWEEP_LIMIT
    while True:
        table = _processes()
        if table is None:
            break
        found = _tree(table, {me} if subreaper else {proc.pid}, proc.pid) - {me, proc.pid}
        if subreaper:
            for pid in found:
                if table[pid][0] == me and table[pid][2] == b"Z":
                    try:
                        os.waitpid(pid, os.WNOHANG)
                    except ChildProcessError:
                        pass
        live = [pid for pid in found if table[pid][2] != b"Z"]
        if not live or time.monotonic() > deadline:
            break
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    proc.wait()


class _Signals:
    """Stop signals raise ``Stop``, except while a process is being started (then they wait)."""

    def __init__(self):
        self.deferred: int | None = None
        self.defer = False

    def install(self) -> None:
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._handle)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a pool worker's caller blocks SIGINT

    def _handle(self, signum, frame) -> None:
        if self.defer:
            self.deferred = signum
            return
        raise Stop(f"signal {signum}")

    def resume(self) -> None:
        self.defer = False
        if self.deferred is not None:
            raise Stop(f"signal {self.deferred}")

    @staticmethod
    def ignore() -> None:
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def supervise(command: str, cwd: str, env: dict | None, time_limit: float, stdout_log: str | None,
              stderr_log: str | None, *, subreaper: bool = False, parent: int | None = None,
              signals: _Signals | None = None) -> dict:
    """Run ``command`` (a shell command line) in ``cwd`` once, under the rules of the module docstring.

    Args:
        subreaper: this process is a dedicated supervisor and a child subreaper.
        parent: the caller's process id; its death raises ``Stop``.
        signals: the stop signals' handler, when this process is a dedicated supervisor.
    Returns:
        ``{"returncode", "timed_out", "seconds", "stderr_tail"}``: the program's exit status (None
        after a timeout), whether it ran out of time, its wall-clock seconds, and the end of its
        stderr (decoded with replacement characters).
    Raises:
        Stop: a stop signal, or the caller died; the program's tree is gone by then.
    """
    out_log, err_log = CappedLog(stdout_log), CappedLog(stderr_log)
    if signals is not None:
        signals.defer = True
    start = time.monotonic()
    proc = subprocess.Popen(command, shell=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    logs = {proc.stdout.fileno(): out_log, proc.stderr.fileno(): err_log}
    selector = selectors.DefaultSelector()
    for fd in logs:
        selector.register(fd, selectors.EVENT_READ)
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(proc.pid)
            selector.register(pidfd, selectors.EVENT_READ)
        except OSError:
            pidfd = None
    timed_out = False
    seconds = 0.0
    try:
        if signals is not None:
            signals.resume()
        deadline = start + time_limit
        while not _ended(proc):
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if parent is not None and os.getppid() != parent:
                raise Stop("the caller died")
            # With a pidfd the select wakes when the program ends; without, it looks now and then.
            wait = min(left, CHECK_EVERY if pidfd is not None else 0.02)
            for key, _ in selector.select(wait):
                if key.fd in logs:
                    _read(key.fd, logs, selector)
        seconds = time.monotonic() - start
    finally:
        if signals is not None:
            signals.ignore()  # nothing interrupts the clean-up
        seconds = seconds or time.monotonic() - start
        end_tree(proc, subreaper)
        _read_rest(logs, selector)
        for log in (out_log, err_log):
            log.close()
        selector.close()
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        if pidfd is not None:
            os.close(pidfd)
    return {"returncode": None if timed_out else proc.returncode, "timed_out": timed_out,
            "seconds": seconds, "stderr_tail": bytes(err_log.last).decode(errors="replace")}


def _read(fd: int, logs: dict, selector: selectors.BaseSelector) -> bool:
    """Read once from a readable pipe into its log; False (and the pipe forgotten) at its end."""
    try:
        data = os.read(fd, CHUNK)
    except BlockingIOError:
        return True
    except OSError:
        data = b""
    if not data:
        selector.unregister(fd)
        logs.pop(fd)
        return False
    logs[fd].write(data)
    return True


def _read_rest(logs: dict, selector: selectors.BaseSelector) -> None:
    """What the killed processes left in the pipes, never waiting: a process out of reach that
    still holds a pipe open (one that left its session where there is no /proc) is not waited for."""
    budget = 16 * CHUNK
    while logs and budget > 0:
        ready = [key.fd for key, _ in selector.select(0) if key.fd in logs]
        if not ready:
            return
        for fd in ready:
            if _read(fd, logs, selector):
                budget -= 1


def run_supervised(command: str, cwd: str | os.PathLike, env: dict | None, time_limit: float,
                   stdout_log: str | os.PathLike | None, stderr_log: str | os.PathLike | None,
                   orphan_dir: str | os.PathLike | None = None) -> dict:
    """Run one move of a program under its own supervisor process; ``supervise``'s result.

    Args:
        command: the program's shell command line.
        cwd: its working folder.
        env: its environment (None: this process's).
        time_limit: wall-clock seconds before it is stopped (a timeout).
        stdout_log, stderr_log: where its output goes, capped (None: nowhere).
        orphan_dir: a folder the supervisor removes if this process dies during the move.
    Raises:
        KeyboardInterrupt and the like pass through once the program's tree is gone;
        RuntimeError: the supervisor itself failed (its error is on stderr).
    """
    spec = {"command": command, "cwd": os.fspath(cwd), "time_limit": time_limit,
            "stdout": None if stdout_log is None else os.fspath(stdout_log),
            "stderr": None if stderr_log is None else os.fspath(stderr_log),
            "orphan_dir": None if orphan_dir is None else os.fspath(orphan_dir), "parent": os.getpid()}
    script = os.path.abspath(__file__)
    if not sys.executable or not os.path.isfile(script):
        return supervise(command, spec["cwd"], env, time_limit, spec["stdout"], spec["stderr"])
    # Its own session: a Ctrl-C at the terminal reaches the caller, which stops the supervisor.
    proc = subprocess.Popen([sys.executable, "-I", "-S", script, json.dumps(spec)], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True)
    try:
        try:
            out, _ = proc.communicate(timeout=time_limit + SLACK)
        except subprocess.TimeoutExpired:  # the supervisor itself hangs: the move has no answer
            stop_supervisor(proc)
            return {"returncode": None, "timed_out": True, "seconds": time_limit, "stderr_tail": ""}
    finally:
        if proc.poll() is None:
            stop_supervisor(proc)
    try:
        outcome = json.loads(out)
    except ValueError:
        outcome = None
    if proc.returncode != 0 or not isinstance(outcome, dict):
        raise RuntimeError(f"the supervisor of {command!r} failed (exit status {proc.returncode})")
    return outcome


def stop_supervisor(proc: subprocess.Popen) -> None:
    """Ask a supervisor to end its program's tree and leave (SIGTERM), and wait; kill it after a grace."""
    try:
        proc.terminate()
        proc.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    finally:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def main(argv: list[str]) -> int:
    """The supervisor process: ``python -I -S supervisor.py SPEC`` (``run_supervised`` starts it)."""
    spec = json.loads(argv[1])
    signals = _Signals()
    parent = spec["parent"]
    try:  # a stop signal from here on, even while the set-up below imports ctypes, is a clean stop
        signals.install()
        subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # died before the request
            raise Stop("the caller died")
        outcome = supervise(spec["command"], spec["cwd"], None, spec["time_limit"], spec["stdout"],
                            spec["stderr"], subreaper=subreaper, parent=parent, signals=signals)
    except Stop:
        _Signals.ignore()  # stopping already: a second signal must not cut the clean-up short
        if os.getppid() != parent and spec.get("orphan_dir"):
            import shutil

            shutil.rmtree(spec["orphan_dir"], ignore_errors=True)
        return STOPPED
    sys.stdout.write(json.dumps(outcome))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
