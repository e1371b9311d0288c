module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xbf16>) -> (tensor<2x3x4xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<3x4xbf16>) -> tensor<2x3x4xbf16>
    return %0 : tensor<2x3x4xbf16>
  }
}
