"""A small Python PJRT client over ctypes: load a plugin, create a client, move data, compile, execute.

    from pjrt_cts.runtime import Plugin, default_plugin_path
    plugin = Plugin.load(default_plugin_path())
    with plugin.create_client({"cpu_device_count": 4}) as client:
        x = client.buffer_from_numpy(numpy.arange(4, dtype=numpy.float32))
        exe = client.compile(stablehlo_text)
        print(exe.execute([x, x])[0].to_numpy())
"""
# The enums the client's API speaks (element types, error codes, host-buffer semantics, extension types).
from pjrt_cts.abi.enums import BufferType, ErrorCode, ExtensionType, HostBufferSemantics, MemoryLayoutType, ProcessState
from pjrt_cts.runtime.async_transfer import AsyncTransferManager, ShapeSpec
from pjrt_cts.runtime.buffer import Buffer
from pjrt_cts.runtime.client import Client, ProcessInfo, make_program
from pjrt_cts.runtime.compile_options import CompileOptions, compile_options_bytes
from pjrt_cts.runtime.defaults import default_plugin_path, legacy_plugin_path
from pjrt_cts.runtime.deferred import AliasFulfilment, ControlDependency, RawCopyFuture
from pjrt_cts.runtime.device import AsyncTrackingEvent, Device, DeviceAttributes, DeviceDescription, Memory
from pjrt_cts.runtime.device_stream import CopyToDeviceStream, HostRecvCallbacks
from pjrt_cts.runtime.dtypes import buffer_type_of, dtype_of
from pjrt_cts.runtime.errors import MissingFunction, NullExtensionFunction, PjrtError, PluginLoadError
from pjrt_cts.runtime.event import Event
from pjrt_cts.runtime.executable import Executable, LoadedExecutable
from pjrt_cts.runtime.execute_context import ExecuteContext
from pjrt_cts.runtime.ffi import FfiExtension
from pjrt_cts.runtime.hooks import CallHook
from pjrt_cts.runtime.layouts import LayoutView, MemoryLayout
from pjrt_cts.runtime.plugin import ExtensionInfo, Plugin
from pjrt_cts.runtime.readback import UnwrittenHostBytes
from pjrt_cts.runtime.topology import ShapeProto, Topology

__all__ = [
    "BufferType", "ErrorCode", "ExtensionType", "HostBufferSemantics", "MemoryLayoutType", "ProcessState",
    "AliasFulfilment", "AsyncTransferManager", "ControlDependency", "CopyToDeviceStream", "HostRecvCallbacks",
    "LayoutView", "RawCopyFuture", "ShapeSpec",
    "AsyncTrackingEvent", "Buffer", "CallHook", "Client", "CompileOptions", "Device", "DeviceAttributes", "DeviceDescription",
    "Event", "Executable", "ExecuteContext", "ExtensionInfo", "FfiExtension", "LoadedExecutable", "Memory", "MemoryLayout",
    "NullExtensionFunction", "PjrtError", "Plugin", "PluginLoadError", "MissingFunction", "ProcessInfo", "ShapeProto",
    "Topology", "UnwrittenHostBytes",
    "buffer_type_of", "compile_options_bytes", "default_plugin_path", "dtype_of", "legacy_plugin_path", "make_program",
]
