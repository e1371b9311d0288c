module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<ui64>) -> (tensor<2x3xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui64>) -> tensor<2x3xui64>
    return %0 : tensor<2x3xui64>
  }
}
