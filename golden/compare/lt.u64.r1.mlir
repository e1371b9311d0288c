module @jit_lt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xui64>, %arg1: tensor<16xui64>) -> (tensor<16xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare LT, %arg0, %arg1, UNSIGNED : (tensor<16xui64>, tensor<16xui64>) -> tensor<16xi1>
    return %0 : tensor<16xi1>
  }
}
