module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>) -> (tensor<2x3xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "pjrt_cts.double_plus_one" %arg0 {decomposition = @pjrt_cts.double_plus_one} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    return %0 : tensor<2x3xbf16>
  }
  func.func private @pjrt_cts.double_plus_one(%arg0: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<2x3xbf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<2x3xbf16>
    %3 = stablehlo.add %1, %2 : tensor<2x3xbf16>
    return %3 : tensor<2x3xbf16>
  }
}
