module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf64>) -> (tensor<4x2x3xf64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[4, 2, 3]> : tensor<3xi64>
    %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %c, dims = [1, 2] : (tensor<2x3xf64>, tensor<3xi64>) -> tensor<4x2x3xf64>
    return %0 : tensor<4x2x3xf64>
  }
}
