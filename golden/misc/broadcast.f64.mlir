module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf64>) -> (tensor<2x1x2x3xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast %arg0, sizes = [2, 1] : (tensor<2x3xf64>) -> tensor<2x1x2x3xf64>
    return %0 : tensor<2x1x2x3xf64>
  }
}
