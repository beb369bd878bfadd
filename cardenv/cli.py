"""What every command line of the project shares (``cardenv``'s and ``cardagents``' alike).

- ``ArgumentParser``: argparse's, except that a bad argument is reported as one line on standard
  error (``prog: error: ...``, exit status 2), without the usage block.
- ``run(main)``: the ``if __name__ == "__main__"`` body. It calls ``main()`` and exits with its
  status (2 with the message on one line for ``sys.exit("message")``), and ends quietly when
  the reader of the output goes away (``... | head``: a ``BrokenPipeError``, exit status 141
  as for a process killed by SIGPIPE) or on Ctrl-C (one line, exit status 130), never with a
  traceback.
- ``output_file_problem`` / ``output_folder_problem``: what is wrong, if anything, with a path
  the command will write (checked before the work starts, so that a result is never lost at
  the end because its folder does not exist).
"""

from __future__ import annotations

import argparse
import os
import sys

EXIT_BAD_INPUT = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader left
EXIT_INTERRUPTED = 130  # 128 + SIGINT
MAX_THREADS = 1024  # --threads, torch_threads: more asks the OpenMP runtime for 200 GB and dies
MAX_SECONDS = 86400.0  # a benchmark's --seconds per measurement


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, its errors on one line: ``prog: error: message`` and exit status 2."""

    def error(self, message: str):
        text = " ".join(str(message).split())
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {text} (--help for usage)\n")


def _quiet(fd_stream) -> None:
    """Point ``fd_stream``'s file descriptor at /dev/null, so that Python's final flush of a
    stream whose reader left raises nothing more (the recipe of the ``signal`` module docs)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd_stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def run(main) -> None:
    """Run a command line's ``main()`` and exit: with its return value if it is an int, else 0;
    2 with the message on one line for ``sys.exit("message")``; 141 without a word if standard
    output (or error) was closed by its reader; 130 and one line on Ctrl-C."""
    try:
        status = main()
        sys.stdout.flush()  # inside the try: a reader gone by now is found here, not at exit
    except BrokenPipeError:
        _quiet(sys.stdout)
        _quiet(sys.stderr)
        sys.exit(EXIT_BROKEN_PIPE)
    except SystemExit as exc:
        if isinstance(exc.code, str):  # sys.exit("message"): a bad input
            try:
                print(" ".join(exc.code.split()), file=sys.stderr)
            except (BrokenPipeError, OSError):
                pass
            sys.exit(EXIT_BAD_INPUT)
        raise
    except KeyboardInterrupt:
        try:
            print("\ninterrupted", file=sys.stderr)
        except (BrokenPipeError, OSError):
            pass
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(status if isinstance(status, int) and not isinstance(status, bool) else 0)


# --- paths a command will write ------------------------------------------------------------------

def _nearest_existing(path: str) -> str:
    """The longest prefix of the absolute ``path`` that exists."""
    current = os.path.abspath(path)
    while not os.path.exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def output_folder_problem(path, create: bool = True) -> str | None:
    """Why the folder ``path`` cannot receive files (``None`` if it can): it is a file, or it
    does not exist and cannot be created (``create``: the command makes it; else it must exist),
    or it is not writable."""
    path = os.fspath(path)
    if not path:
        return "the folder name is empty"
    if "\0" in path:
        return "a file name holds no NUL character"
    if os.path.isdir(path):
        if not os.access(path, os.W_OK | os.X_OK):
            return f"the folder {path} is not writable"
        return None
    if os.path.exists(path):
        return "not a folder (a file of that name exists)"
    if not create:
        return f"the folder {path} does not exist"
    existing = _nearest_existing(path)
    if not os.path.isdir(existing):
        return f"cannot create the folder {path}: {existing} is a file"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot create the folder {path}: {existing} is not writable"
    return None


def output_file_problem(path, create_folder: bool = False) -> str | None:
    """Why the file ``path`` cannot be written (``None`` if it can): it is a folder, its folder
    does not exist (unless ``create_folder``: the command makes it) or is not writable, or the
    file exists and is read-only."""
    path = os.fspath(path)
    if not path:
        return "the file name is empty"
    if "\0" in path:
        return "a file name holds no NUL character"
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        return "a folder, not a file"
    folder = os.path.dirname(os.path.abspath(path))
    problem = output_folder_problem(folder, create=create_folder)
    if problem:
        return problem
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the file exists and is not writable"
    return None
