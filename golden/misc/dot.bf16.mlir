module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>, %arg1: tensor<3x4xbf16>) -> (tensor<2x4xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
    return %0 : tensor<2x4xbf16>
  }
}
