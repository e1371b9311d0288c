"""Typed wrappers of PJRT extension functions, one module per extension type (declarations: pjrt_cts.abi.extensions).

Every call goes through `Plugin.extension_function` under the name `EXTENSION.function`, so blocks, call accounting
and narration see it; a returned PJRT_Error becomes PjrtError naming that function.
"""
