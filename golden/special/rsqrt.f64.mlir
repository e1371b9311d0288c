module @jit_rsqrt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<14xf64>) -> (tensor<14xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.rsqrt %arg0 : tensor<14xf64>
    return %0 : tensor<14xf64>
  }
}
