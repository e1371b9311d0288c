module @jit_log1p attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<168xf64>) -> (tensor<168xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.log_plus_one %arg0 : tensor<168xf64>
    return %0 : tensor<168xf64>
  }
}
