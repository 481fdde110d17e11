"""Linux's calls for building a jail, through ctypes: those the os module lacks (unshare, mount,
pivot_root, prctl, capset), and writing the /proc files a jail is set up by. Used by enter_jail.py
and isolate_by_user.py before the learner's code runs: builtin modules and ctypes only.
"""
import _signal
import errno
import os

# Windows has no SIGKILL or SIGSTOP: the numbers keep this module importable there (no jail is built)
SIGINT, SIGKILL, SIGTERM, SIGSTOP = (getattr(_signal, name, number) for name, number in
                                     (("SIGINT", 2), ("SIGKILL", 9), ("SIGTERM", 15), ("SIGSTOP", 19)))
CLONE_NEWUSER = 0x10000000
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "loongarch64": 41, "ppc64le": 203, "ppc64": 203,
              "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218, "armv6l": 218}

# keyctl(2): the kernel's keyrings belong to no namespace; a process inherits its session keyring
KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "loongarch64": 219, "ppc64le": 271, "ppc64": 271,
          "s390x": 280, "i686": 288, "i386": 288, "armv7l": 311, "armv6l": 311}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 1, 7
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5

_LIBC = None


def libc():
    global _LIBC
    if _LIBC is None:
        import ctypes
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return _LIBC


def check(result: int, what: str) -> None:
    if result != 0:
        import ctypes
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _path(text):
    return None if text is None else os.fsencode(text)


def unshare(flags: int) -> None:
    check(libc().unshare(flags), "unshare")


def mount(source, target: str, fstype, flags: int, data=None) -> None:
    check(libc().mount(_path(source), _path(target), _path(fstype), flags, _path(data)), f"mount {target}")


def prctl(option: int, value: int = 0) -> None:
    check(libc().prctl(option, value, 0, 0, 0), f"prctl {option}")


def pivot_root() -> None:
    """pivot_root(".", "."): the old root ends up on top of the new one; then it is detached."""
    number = PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: no syscall number known for {os.uname().machine}")
    check(libc().syscall(number, b".", b"."), "pivot_root")
    check(libc().umount2(b".", MNT_DETACH), "umount the old root")


def fresh_keyrings() -> None:
    """A new, empty session keyring, and this uid's own keyrings emptied. Otherwise the learner's
    code holds the grader's session keyring (a login's or a service's: credentials, tokens) with
    the rights of its owner, can read and change what is in it, and can leave keys there, or in
    the keyrings of a uid a later child gets again, for another student's code to read. Where
    keyrings are not in the kernel or are refused to this process (a container's seccomp), the
    learner's code meets the same refusal."""
    import ctypes
    number = KEYCTL.get(os.uname().machine)
    if number is None:
        raise OSError(f"keyctl: no syscall number known for {os.uname().machine}")
    call = libc().syscall
    for operation, keyring in ((KEYCTL_JOIN_SESSION_KEYRING, None), (KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING),
                               (KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING)):
        if call(number, operation, ctypes.c_long(keyring) if keyring else None) == -1:
            error = ctypes.get_errno()
            if error in (errno.ENOSYS, errno.EPERM):
                return
            raise OSError(error, f"keyctl {operation}: {os.strerror(error)}")


def drop_bounding_set() -> None:
    """No exec can grant a capability any more. Needs CAP_SETPCAP (else it changes nothing)."""
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
        for cap in range(int(last.read()) + 1):
            libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def drop_capabilities() -> None:
    """Empty the bounding set and every capability set of this process."""
    import ctypes
    drop_bounding_set()
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    check(libc().capset(header, (ctypes.c_uint32 * 6)()), "capset")


def write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as file:
        file.write(text)


def map_self(inner: int) -> None:
    """Enter a user namespace of our own, in which our host uid and gid are `inner`."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER)
    if os.path.exists("/proc/self/setgroups"):
        write("/proc/self/setgroups", "deny")
    write("/proc/self/uid_map", f"{inner} {uid} 1")
    write("/proc/self/gid_map", f"{inner} {gid} 1")


def kill(pid: int) -> None:
    try:
        os.kill(pid, SIGKILL)
    except ProcessLookupError:
        pass
