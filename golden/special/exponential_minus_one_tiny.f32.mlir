module @jit_expm1 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<94xf32>) -> (tensor<94xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential_minus_one %arg0 : tensor<94xf32>
    return %0 : tensor<94xf32>
  }
}
