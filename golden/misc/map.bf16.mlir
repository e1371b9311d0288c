module @jit_mapped attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>, %arg1: tensor<2x3xbf16>) -> (tensor<2x3xbf16> {jax.result_info = "result"}) {
    %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg2: tensor<bf16>, %arg3: tensor<bf16>):
      %1 = stablehlo.multiply %arg2, %arg3 : tensor<bf16>
      %2 = stablehlo.add %1, %arg2 : tensor<bf16>
      stablehlo.return %2 : tensor<bf16>
    }) : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
    return %0 : tensor<2x3xbf16>
  }
}
