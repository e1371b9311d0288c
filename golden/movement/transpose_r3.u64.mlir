module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xui64>) -> (tensor<4x2x3xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xui64>) -> tensor<4x2x3xui64>
    return %0 : tensor<4x2x3xui64>
  }
}
