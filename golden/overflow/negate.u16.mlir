module @jit_neg attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xui16>) -> (tensor<7xui16> {jax.result_info = "result"}) {
    %0 = stablehlo.negate %arg0 : tensor<7xui16>
    return %0 : tensor<7xui16>
  }
}
