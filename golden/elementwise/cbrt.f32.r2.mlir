module @jit_cbrt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.cbrt %arg0 : tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
}
