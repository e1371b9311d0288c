"""The ordered function-pointer slots of `struct PJRT_Api` and the minor version that added each.

Slot i lives at byte offset 40 + 8*i; a plugin has it iff offset + 8 <= api.struct_size and the
pointer is non-NULL. "Base" slots (0-89) are those of the 0.57 layout.
"""
from __future__ import annotations

from dataclasses import dataclass

from pjrt_cts.abi.base import BASE_MINOR

API_HEADER_SIZE = 40  # struct_size, extension_start, PJRT_Api_Version (24 bytes)
SLOT_SIZE = 8

_BASE_SLOTS = """
Error_Destroy Error_Message Error_GetCode Plugin_Initialize Plugin_Attributes
Event_Destroy Event_IsReady Event_Error Event_Await Event_OnReady
Client_Create Client_Destroy Client_PlatformName Client_ProcessIndex Client_PlatformVersion Client_Devices
Client_AddressableDevices Client_LookupDevice Client_LookupAddressableDevice Client_AddressableMemories
Client_Compile Client_DefaultDeviceAssignment Client_BufferFromHostBuffer
DeviceDescription_Id DeviceDescription_ProcessIndex DeviceDescription_Attributes DeviceDescription_Kind
DeviceDescription_DebugString DeviceDescription_ToString
Device_GetDescription Device_IsAddressable Device_LocalHardwareId Device_AddressableMemories Device_DefaultMemory
Device_MemoryStats
Memory_Id Memory_Kind Memory_DebugString Memory_ToString Memory_AddressableByDevices
Executable_Destroy Executable_Name Executable_NumReplicas Executable_NumPartitions Executable_NumOutputs
Executable_SizeOfGeneratedCodeInBytes Executable_GetCostAnalysis Executable_OutputMemoryKinds
Executable_OptimizedProgram Executable_Serialize
LoadedExecutable_Destroy LoadedExecutable_GetExecutable LoadedExecutable_AddressableDevices LoadedExecutable_Delete
LoadedExecutable_IsDeleted LoadedExecutable_Execute Executable_DeserializeAndLoad LoadedExecutable_Fingerprint
Buffer_Destroy Buffer_ElementType Buffer_Dimensions Buffer_UnpaddedDimensions Buffer_DynamicDimensionIndices
Buffer_GetMemoryLayout Buffer_OnDeviceSizeInBytes Buffer_Device Buffer_Memory Buffer_Delete Buffer_IsDeleted
Buffer_CopyToDevice Buffer_ToHostBuffer Buffer_IsOnCpu Buffer_ReadyEvent Buffer_UnsafePointer
Buffer_IncreaseExternalReferenceCount Buffer_DecreaseExternalReferenceCount Buffer_OpaqueDeviceMemoryDataPointer
CopyToDeviceStream_Destroy CopyToDeviceStream_AddChunk CopyToDeviceStream_TotalBytes CopyToDeviceStream_GranuleSize
CopyToDeviceStream_CurrentBytes
TopologyDescription_Create TopologyDescription_Destroy TopologyDescription_PlatformName
TopologyDescription_PlatformVersion TopologyDescription_GetDeviceDescriptions TopologyDescription_Serialize
TopologyDescription_Attributes Compile
""".split()

# Appended after the base layout, in slot order: (name, minor that added it).
_APPENDED_SLOTS: list[tuple[str, int]] = [
    ("Executable_OutputElementTypes", 29),
    ("Executable_OutputDimensions", 29),
    ("Buffer_CopyToMemory", 32),
    ("Client_CreateViewOfDeviceBuffer", 33),
    ("Executable_Fingerprint", 35),
    ("Client_TopologyDescription", 36),
    ("Executable_GetCompiledMemoryStats", 40),
    ("Memory_Kind_Id", 48),
    ("ExecuteContext_Create", 52),
    ("ExecuteContext_Destroy", 52),
    ("Buffer_CopyRawToHost", 57),
    ("AsyncHostToDeviceTransferManager_Destroy", 60),
    ("AsyncHostToDeviceTransferManager_TransferData", 60),
    ("Client_CreateBuffersForAsyncHostToDevice", 60),
    ("AsyncHostToDeviceTransferManager_RetrieveBuffer", 62),
    ("AsyncHostToDeviceTransferManager_Device", 62),
    ("AsyncHostToDeviceTransferManager_BufferCount", 62),
    ("AsyncHostToDeviceTransferManager_BufferSize", 62),
    ("AsyncHostToDeviceTransferManager_SetBufferError", 62),
    ("AsyncHostToDeviceTransferManager_AddMetadata", 62),
    ("Client_DmaMap", 67),
    ("Client_DmaUnmap", 67),
    ("Client_CreateUninitializedBuffer", 68),
    ("Client_UpdateGlobalProcessInfo", 73),
    ("TopologyDescription_Deserialize", 75),
    ("Client_CreateAliasBuffer", 77),
    ("Client_FulfillAliasBuffer", 77),
    ("LoadedExecutable_GetDeviceAssignment", 79),
    ("Client_CreateErrorBuffer", 82),
    ("AsyncHostToDeviceTransferManager_TransferLiteral", 83),
    ("Buffer_CopyRawToHostFuture", 84),
    ("Device_PoisonExecution", 85),
    ("Device_CreateAsyncTrackingEvent", 86),
    ("AsyncTrackingEvent_Destroy", 86),
    ("Executable_GetCompileOptions", 87),
    ("Buffer_DonateWithControlDependency", 88),
    ("Event_Create", 89),
    ("Event_Set", 89),
    ("Device_GetAttributes", 92),
    ("Client_Load", 95),
    ("LoadedExecutable_AddressableDeviceLogicalIds", 96),
    ("Buffer_Bitcast", 98),
    ("Error_ForEachPayload", 99),
    ("TopologyDescription_Fingerprint", 101),
    ("Executable_ParameterMemoryKinds", 102),
    ("Device_ClearMemoryStats", 106),
    ("TopologyDescription_MakeCanonicalShapeForMemorySpace", 109),
    ("TopologyDescription_GetMemorySpaceKindIds", 110),
]

# Functions returning void instead of PJRT_Error*.
VOID_FUNCTIONS = frozenset({"Error_Destroy", "Error_Message"})


@dataclass(frozen=True)
class Slot:
    index: int
    name: str  # without the PJRT_ prefix, e.g. "Client_Create"
    since_minor: int  # BASE_MINOR for the 0.57 base layout

    @property
    def offset(self) -> int:
        return API_HEADER_SIZE + SLOT_SIZE * self.index

    @property
    def c_name(self) -> str:
        return "PJRT_" + self.name

    @property
    def args_struct_name(self) -> str:
        return f"PJRT_{self.name}_Args"


SLOTS: tuple[Slot, ...] = tuple(
    [Slot(i, name, BASE_MINOR) for i, name in enumerate(_BASE_SLOTS)]
    + [Slot(len(_BASE_SLOTS) + i, name, minor) for i, (name, minor) in enumerate(_APPENDED_SLOTS)]
)
SLOTS_BY_NAME: dict[str, Slot] = {slot.name: slot for slot in SLOTS}
NUM_SLOTS = len(SLOTS)
HEADER_MINOR = 114  # the header the declarations mirror
API_STRUCT_SIZE = API_HEADER_SIZE + SLOT_SIZE * NUM_SLOTS


def slots_expected_at(minor: int) -> list[Slot]:
    """Slots a plugin reporting 0.<minor> must have (base slots count from 0.57)."""
    return [slot for slot in SLOTS if slot.since_minor <= minor or slot.since_minor <= BASE_MINOR]


def slot_count_for_struct_size(struct_size: int) -> int:
    return max(0, (struct_size - API_HEADER_SIZE) // SLOT_SIZE)
