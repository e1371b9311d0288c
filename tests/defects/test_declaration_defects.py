"""The defects of declarations and reports the suite checks instead of trusting (issue 53): each is named from the
message its test writes, and nothing else of the same tests is."""
from __future__ import annotations

import pytest

from pjrt_cts.judgment.defects import UNCLASSIFIED, attribute
from pjrt_cts.schema import TestRecord

WINDOW = "versioning.stablehlo_versions.test_no_portable_artifact_beyond_the_declared_window_is_read"
AT_CURRENT = "versioning.stablehlo_versions.test_artifact_at_exactly_the_declared_current_version_compiles"
PLATFORM = "client.platform.test_platform_name_is_the_profiles"
CLIENT = "client.client_create.test_client_creates_with_profile_options"


def _attributed(test_id: str, outcome: str, message: str) -> str | None:
    return attribute(TestRecord.from_json({"id": test_id, "outcome": outcome, "message": message, "details": {}}))


@pytest.mark.parametrize(("test_id", "message", "defect"), [
    (WINDOW, "AssertionError: PJRT_Plugin_Attributes declares stablehlo_current_version 0.1.0, older than the first "
             "portable StableHLO version 0.9.0: no portable artifact lies in its window: the declared window is false",
     "stablehlo-window-false"),
    (WINDOW, "AssertionError: PJRT_Plugin_Attributes declares stablehlo_minimum_version 1.5.0 above its "
             "stablehlo_current_version 1.0.0: an empty window: the declared window is false", "stablehlo-window-false"),
    (WINDOW, "AssertionError: PJRT_Client_Compile of the StableHLO 1.17.0 portable artifact of elementwise.add.f32.r1, "
             "outside the declared window [0.9.0, 1.13.3], then Execute: output 0 differs", UNCLASSIFIED),
    (AT_CURRENT, "AssertionError: PJRT_Plugin_Attributes declares stablehlo_current_version 0.1.0, older than the "
                 "first portable StableHLO version 0.9.0: no program can be serialized for it", "stablehlo-window-false"),
    (AT_CURRENT, "AssertionError: PJRT_Client_Compile of add_mul as a StableHLO 1.20.0 portable artifact failed: "
                 "INVALID_ARGUMENT", UNCLASSIFIED),
    (PLATFORM, "AssertionError: PJRT_Client_PlatformName answered 'host', but the profile 'cpu' says the plugin reports "
               "'cpu' (profile.toml `platform`)", "platform-name-differs-from-profile"),
    (CLIENT, "AssertionError: PJRT_Client_Create({'cpu_device_count': 4}) should give a client with at least one "
             "addressable device, but PJRT_Client_AddressableDevices lists none", "client-lists-no-device"),
    (CLIENT, "AssertionError: PJRT_Client_Create({}) should create a client with the profile's options, but failed with "
             "INTERNAL: boom", UNCLASSIFIED),
    ("execute.golden_cases.test_case_matches_reference[spec.sort.GT_TOTALORDER.unstable.f4e2m1fn]",
     "NOT_SUPPORTED on the plugin's declaration for one case of an op the plugin implements on this element type: "
     "...; PJRT_Client_Compile: INTERNAL: RET_CHECK failure (xla/service/cpu/cpu_compiler.cc:1171) "
     "!llvm::verifyModule(llvm_module, &err_stream) Invalid LLVM IR before optimizations: ...",
     "narrow-float-totalorder-sort-invalid-llvm-ir"),
])
def test_each_declaration_defect_is_named_from_its_own_message(test_id: str, message: str, defect: str) -> None:
    assert _attributed(test_id, "FAIL", message) == defect
    if defect != UNCLASSIFIED:  # a crash of the same test is another finding, never this defect
        assert _attributed(test_id, "CRASH", message) != defect
