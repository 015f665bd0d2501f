"""The few CUDA runtime calls PyTorch does not wrap, through ``ctypes``.

The engine sections of the book measure things PyTorch's Python API has no
call for: the context's schedule flags (``cudaSetDeviceFlags``), host
callbacks (``cudaLaunchHostFunc``), a capture with the runtime's own calls
and ``cudaGraphExecUpdate``, and the release threshold of the device's
default memory pool. This module finds the CUDA runtime library that
PyTorch loaded and calls it; every call checks the result and raises
``CudaError`` with the runtime's own name for a failure.

Not a measurement itself: the scripts of this folder import it.
"""

import ctypes
import glob
import os

import torch

# cudaSetDeviceFlags: how a waiting CPU thread waits.
SCHEDULE = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}
# cudaStreamCaptureMode
CAPTURE_RELAXED = 2
# cudaMemPoolAttr
POOL_RELEASE_THRESHOLD = 4
POOL_RESERVED_MEM_CURRENT = 5
POOL_USED_MEM_CURRENT = 7
# cudaGraphExecUpdateResult, as the runtime reference lists it.
UPDATE_RESULTS = {
    0: "success",
    1: "error",
    2: "topology changed",
    3: "node type changed",
    4: "function changed",
    5: "parameters changed",
    6: "not supported",
    7: "unsupported function change",
    8: "attributes changed",
}


class CudaError(RuntimeError):
    """A CUDA runtime call that did not return ``cudaSuccess``."""


def _library_path() -> str:
    """The libcudart PyTorch loaded (from this process's map), else one from its wheels."""
    torch.cuda.is_available()  # loads PyTorch's CUDA libraries without creating a context
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libcudart.so" in os.path.basename(path):
                return path
    roots = [os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(torch.__file__))]
    for root in roots:
        found = sorted(glob.glob(os.path.join(root, "**", "libcudart.so*"), recursive=True))
        if found:
            return found[-1]
    raise CudaError("libcudart is not loaded by PyTorch and not found beside it")


_lib = ctypes.CDLL(_library_path())
_lib.cudaGetErrorName.restype = ctypes.c_char_p


def check(result: int, call: str) -> None:
    """Raises `CudaError` naming `call` when `result` is not ``cudaSuccess``."""
    if result != 0:
        name = _lib.cudaGetErrorName(result).decode()
        raise CudaError(f"{call} returned {name} ({result})")


def set_device_flags(schedule: str) -> None:
    """``cudaSetDeviceFlags``: call before anything creates the context."""
    check(_lib.cudaSetDeviceFlags(ctypes.c_uint(SCHEDULE[schedule])), "cudaSetDeviceFlags")


def device_flags() -> int:
    """``cudaGetDeviceFlags``: the flags the context has now."""
    flags = ctypes.c_uint()
    check(_lib.cudaGetDeviceFlags(ctypes.byref(flags)), "cudaGetDeviceFlags")
    return flags.value


# A C function with the host callback's signature, void fn(void *), that does
# nothing with a null argument: libc's free. A Python callback would run on
# the driver's thread and need the interpreter's lock.
_libc = ctypes.CDLL(None)
NOOP_HOST_FUNC = ctypes.cast(_libc.free, ctypes.c_void_p)


def launch_host_func(stream: int, fn: ctypes.c_void_p = NOOP_HOST_FUNC) -> None:
    """``cudaLaunchHostFunc(stream, fn, NULL)``."""
    check(
        _lib.cudaLaunchHostFunc(ctypes.c_void_p(stream), fn, ctypes.c_void_p(0)),
        "cudaLaunchHostFunc",
    )


def begin_capture(stream: int) -> None:
    """``cudaStreamBeginCapture`` in relaxed mode."""
    check(
        _lib.cudaStreamBeginCapture(ctypes.c_void_p(stream), ctypes.c_int(CAPTURE_RELAXED)),
        "cudaStreamBeginCapture",
    )


def end_capture(stream: int) -> int:
    """``cudaStreamEndCapture``: the captured graph."""
    graph = ctypes.c_void_p()
    check(_lib.cudaStreamEndCapture(ctypes.c_void_p(stream), ctypes.byref(graph)), "cudaStreamEndCapture")
    return graph.value


def node_count(graph: int) -> int:
    """``cudaGraphGetNodes`` with no array: how many nodes the graph has."""
    count = ctypes.c_size_t()
    check(_lib.cudaGraphGetNodes(ctypes.c_void_p(graph), None, ctypes.byref(count)), "cudaGraphGetNodes")
    return count.value


def instantiate(graph: int) -> int:
    """``cudaGraphInstantiate`` with no flags: the executable graph."""
    exec_ = ctypes.c_void_p()
    check(
        _lib.cudaGraphInstantiate(ctypes.byref(exec_), ctypes.c_void_p(graph), ctypes.c_ulonglong(0)),
        "cudaGraphInstantiate",
    )
    return exec_.value


class _UpdateInfo(ctypes.Structure):
    _fields_ = [("result", ctypes.c_int), ("errorNode", ctypes.c_void_p), ("errorFromNode", ctypes.c_void_p)]


def exec_update(exec_: int, graph: int) -> str:
    """``cudaGraphExecUpdate``: the result's name ("success", "topology changed", ...)."""
    info = _UpdateInfo()
    _lib.cudaGraphExecUpdate(ctypes.c_void_p(exec_), ctypes.c_void_p(graph), ctypes.byref(info))
    _lib.cudaGetLastError()  # a refused update leaves its error behind; clear it
    return UPDATE_RESULTS.get(info.result, f"result {info.result}")


def graph_launch(exec_: int, stream: int) -> None:
    """``cudaGraphLaunch``."""
    check(_lib.cudaGraphLaunch(ctypes.c_void_p(exec_), ctypes.c_void_p(stream)), "cudaGraphLaunch")


def destroy(graph: int = 0, exec_: int = 0) -> None:
    """``cudaGraphDestroy`` / ``cudaGraphExecDestroy`` of whichever is given."""
    if exec_:
        check(_lib.cudaGraphExecDestroy(ctypes.c_void_p(exec_)), "cudaGraphExecDestroy")
    if graph:
        check(_lib.cudaGraphDestroy(ctypes.c_void_p(graph)), "cudaGraphDestroy")


def default_pool(device: int = 0) -> int:
    """``cudaDeviceGetDefaultMemPool``: the pool ``cudaMallocAsync`` draws from."""
    pool = ctypes.c_void_p()
    check(_lib.cudaDeviceGetDefaultMemPool(ctypes.byref(pool), ctypes.c_int(device)), "cudaDeviceGetDefaultMemPool")
    return pool.value


def pool_get(pool: int, attr: int) -> int:
    """``cudaMemPoolGetAttribute`` of a 64-bit attribute."""
    value = ctypes.c_uint64()
    check(
        _lib.cudaMemPoolGetAttribute(ctypes.c_void_p(pool), ctypes.c_int(attr), ctypes.byref(value)),
        "cudaMemPoolGetAttribute",
    )
    return value.value


def pool_set(pool: int, attr: int, value: int) -> None:
    """``cudaMemPoolSetAttribute`` of a 64-bit attribute."""
    raw = ctypes.c_uint64(value)
    check(
        _lib.cudaMemPoolSetAttribute(ctypes.c_void_p(pool), ctypes.c_int(attr), ctypes.byref(raw)),
        "cudaMemPoolSetAttribute",
    )
