"""The arrays a binding hands the engine's code, on the device the engine runs on.

A binding works out the caller's inputs on the host (numpy, from the call
slotguard sent) and hands the engine's code device tensors made by an Ops:
TorchOps on the GPU machine (torch CUDA tensors, what the engine's
launchers take), or, in the host tests of the argument mapping, NumpyOps
(numpy arrays handed to stand-in functions of the same signatures).
"""

__all__ = ["TorchOps", "NumpyOps"]


class TorchOps(object):
    """torch tensors on `device` ("cuda"); the namespace the engine's code is compiled in."""

    def __init__(self, device="cuda"):
        import numpy as np
        import torch
        self.np = np
        self.torch = torch
        self.device = torch.device(device)

    def namespace(self):
        ns = {"torch": self.torch}
        try:
            import triton
            import triton.language as tl
            ns.update(triton=triton, tl=tl)
        except ImportError:
            pass
        return ns

    def tensor(self, array, dtype):
        """A device copy of the numpy array `array` as int32 ("i32"), int64 ("i64") or uint64 ("u64")."""
        np_dtype = {"i32": self.np.int32, "i64": self.np.int64, "u64": self.np.uint64}[dtype]
        host = self.torch.from_numpy(self.np.ascontiguousarray(array, dtype=np_dtype))
        if dtype == "u64":  # torch has uint64 since 2.3; the engine's pointer arrays use it
            host = host.view(self.torch.int64).view(self.torch.uint64)
        return host.to(self.device)

    def full(self, shape, value, dtype):
        t = {"i32": self.torch.int32, "i64": self.torch.int64, "bool": self.torch.bool}[dtype]
        return self.torch.full(shape, value, dtype=t, device=self.device)

    def host(self, tensor):
        return tensor.cpu().numpy()

    def data_ptr(self, tensor):
        return tensor.data_ptr()

    def strided(self, tensor, shape, strides):
        return tensor.as_strided(shape, strides)

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()


class NumpyOps(object):
    """numpy arrays, for stand-in functions (the host tests of a binding's argument mapping)."""

    def __init__(self, namespace=None):
        import numpy as np
        self.np = np
        self._namespace = dict(namespace or {})

    def namespace(self):
        return dict(self._namespace)

    def tensor(self, array, dtype):
        np_dtype = {"i32": self.np.int32, "i64": self.np.int64, "u64": self.np.uint64}[dtype]
        return self.np.array(array, dtype=np_dtype)

    def full(self, shape, value, dtype):
        dtypes = {"i32": self.np.int32, "i64": self.np.int64, "bool": self.np.bool_}
        return self.np.full(shape, value, dtype=dtypes[dtype])

    def host(self, array):
        return self.np.asarray(array)

    def data_ptr(self, array):
        return array.ctypes.data

    def strided(self, array, shape, strides):
        item = array.itemsize
        return self.np.lib.stride_tricks.as_strided(array, shape, tuple(s * item for s in strides))

    def sync(self):
        pass
